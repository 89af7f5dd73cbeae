/**
 * The clock request handling reads for "now" (the rate-limit windows count by it). Real time
 * unless the local sandbox installs another one (tests that must not depend on where the
 * wall clock is inside a minute); a deployed function never changes it.
 */
export type Clock = () => number;

let source: Clock = Date.now;

/** The current time by the installed clock. */
export const now = (): Date => new Date(source());

/** Installs a clock (epoch milliseconds); `undefined` puts the real one back. */
export function setClock(clock: Clock | undefined): void {
  source = clock ?? Date.now;
}
