/**
 * The clock request handling reads for "now" (the rate-limit windows count by it). Real time
 * unless the local sandbox installs another one (tests that must not depend on where the
 * wall clock is inside a minute); a deployed function never changes it.
 */
export type Clock = () => number;

/** Read late (not `Date.now` captured at load), so that a test's fake Date is the real clock too. */
const wall: Clock = () => Date.now();

let source: Clock = wall;

/** The current time by the installed clock. */
export const now = (): Date => new Date(source());

/** Installs a clock (epoch milliseconds); `undefined` puts the real one back. */
export function setClock(clock: Clock | undefined): void {
  source = clock ?? wall;
}

/** The last second of the year 9999: a later unix time from a client is milliseconds sent for seconds. */
export const MAX_UNIX_SECONDS = 253_402_300_799;
