/**
 * What every webhook scenario shares: the sandbox, the receivers, API calls as an account, and a
 * run counter that gives each scenario its own receiver paths.
 */
import type { Sandbox } from "../../../infra/local/sandbox.ts";
import { loopbackApiBase } from "../lib/sandbox.ts";
import type { Receivers } from "./receivers.ts";

/** An account and an API key of its administrator. */
export interface Caller {
  readonly accountId: number;
  readonly key: string;
}

export interface Bench {
  readonly sandbox: Sandbox;
  readonly rx: Receivers;
  /** The sandbox's seeded account. */
  readonly admin: Caller;
  /** A new run number: receiver paths of one scenario never match another's. */
  nextRun(): number;
  callAs(as: Caller, method: string, path: string, body?: unknown): Promise<unknown>;
  /** A webhook of `as` on `inbox_created` to the receiver path `path`; its id. */
  /** A webhook on inbox_created at `path` of the receivers, optionally paced (`rate_limit`). */
  createHook(as: Caller, path: string, rateLimit?: number): Promise<number>;
  deleteHook(as: Caller, id: number): Promise<void>;
  /** Creates an inbox (the event: inbox_created); its id. */
  createInbox(as: Caller, run: number): Promise<number>;
}

export function makeBench(sandbox: Sandbox, rx: Receivers): Bench {
  const api = loopbackApiBase(sandbox);
  let run = 0;
  const callAs = async (as: Caller, method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${api}/api/v1/accounts/${as.accountId}${path}`, {
      method,
      headers: { "content-type": "application/json", api_access_token: as.key },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    sandbox,
    rx,
    admin: { accountId: sandbox.info.accountId, key: sandbox.info.adminApiKey },
    nextRun: () => ++run,
    callAs,
    createHook: async (as, path, rateLimit) => {
      const body = { url: `${rx.base}${path}`, subscriptions: ["inbox_created"], ...(rateLimit !== undefined ? { rate_limit: rateLimit } : {}) };
      const reply = (await callAs(as, "POST", "/webhooks", body)) as { payload: { webhook: { id: number } } };
      return reply.payload.webhook.id;
    },
    deleteHook: async (as, id) => {
      await callAs(as, "DELETE", `/webhooks/${id}`);
    },
    createInbox: async (as, n) => ((await callAs(as, "POST", "/inboxes", { name: `bench ${n}`, channel: { type: "api" } })) as { id: number }).id,
  };
}
