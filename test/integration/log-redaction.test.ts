/**
 * No secret or personal datum reaches a log line: real flows (sign-in, password recovery with a
 * failing mailer, key creation, checkout link/prefill/subscribe, a 500) run with LOG_LEVEL=debug
 * while every console line is captured; then none of the values may appear in them.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { redact } from "../../shared/observability/log.ts";
import { invoke } from "../support/api.ts";
import { customer, makeCatalog, subscribeBody } from "../support/checkout.ts";
import { makeUser } from "../support/users.ts";

const lines: string[] = [];
const secrets = new Set<string>();

function setEnv(env: Record<string, string>): void {
  Object.assign(process.env, env);
  resetConfig();
}

beforeAll(() => {
  const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  vi.spyOn(console, "log").mockImplementation(capture);
  vi.spyOn(console, "error").mockImplementation(capture);
  vi.spyOn(console, "warn").mockImplementation(capture);
  // A mail directory that cannot be written: the mailer's error path logs too.
  const blocker = join(mkdtempSync(join(tmpdir(), "redact-")), "file");
  writeFileSync(blocker, "");
  setEnv({ LOG_LEVEL: "debug", MAIL_DIR: join(blocker, "mail") });
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe("log redaction", () => {
  it("keeps keys, passwords, tokens and customers' e-mail, phone and CNPJ out of every log line", async () => {
    const user = await makeUser();
    [user.password, user.email].forEach((s) => secrets.add(s));

    const signIn = await invoke("auth.sign_in", { body: { email: user.email, password: user.password } });
    expect(signIn.status).toBe(200);
    secrets.add(signIn.json.data.access_token);
    expect((await invoke("auth.sign_in", { body: { email: user.email, password: "wrong-password-1" } })).status).toBe(401);
    secrets.add("wrong-password-1");

    expect((await invoke("auth.password_request", { body: { email: user.email } })).status).toBe(200);

    const created = await invoke("access_tokens.create", { key: signIn.json.data.access_token, body: { name: "ci" } });
    expect(created.status).toBe(200);
    secrets.add(created.json.access_token);

    const cat = await makeCatalog();
    const link = await invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly", customer } });
    expect(link.status).toBe(201);
    const token = new URL(link.json.url).searchParams.get("token")!;
    [token, customer.email, customer.phone, customer.cnpj, "+5511912345678", "11222333000181"].forEach((s) => secrets.add(s));
    expect((await invoke("checkout.prefill", { query: { token } })).status).toBe(200);

    const buyer = `buyer-${process.pid}@empresa.com.br`;
    const sub = await invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, buyer) });
    expect(sub.status).toBe(201);
    [buyer, sub.json.access_token, (subscribeBody(cat.plan.slug, buyer) as { user: { password: string } }).user.password].forEach((s) => secrets.add(s));
    expect((await invoke("checkout.subscribe", { body: { ...subscribeBody(cat.plan.slug, buyer), customer: { ...customer, cnpj: "11.222.333/0001-00" } } })).status).toBe(422);

    // An unexpected failure (a table that does not exist) renders a 500 and logs the error.
    setEnv({ TABLE_NAME: "no-such-table" });
    const boom = await invoke("accounts.show", { params: { account_id: user.accountId }, key: signIn.json.data.access_token });
    expect(boom.status).toBe(500);
    expect(boom.json).toEqual({ error: "Internal server error", request_id: expect.any(String) });

    const text = lines.join("\n");
    expect(lines.filter((l) => l.includes('"message":"request"')).length).toBeGreaterThanOrEqual(9);
    expect(text).toContain('"message":"unhandled error"');
    expect(text).toContain('"message":"mail not sent"');
    for (const s of secrets) {
      expect(s.length).toBeGreaterThan(5);
      expect(text).not.toContain(s);
    }
  });

  it("redacts by field name and by the look of a value", () => {
    expect(
      redact({
        password: "hunter22",
        nested: { api_access_token: "x", note: "key cv_abcdefghijklmnopqrstuvwxyz0123 for ana@example.com, +55 11 91234-5678" },
        whsec: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        requestId: "25b20346-40d6-45fb-9370-7e9c139e17f4",
        at: "2026-11-21T20:27:04.390Z",
      }),
    ).toEqual({
      password: "[redacted]",
      nested: { api_access_token: "[redacted]", note: "key [api-key] for [email], [phone]" },
      whsec: "[webhook-secret]",
      requestId: "25b20346-40d6-45fb-9370-7e9c139e17f4",
      at: "2026-11-21T20:27:04.390Z",
    });
  });
});
