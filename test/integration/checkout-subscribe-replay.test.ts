/**
 * Subscribe against DynamoDB Local, called with explicit instants: how long an Idempotency-Key
 * replays its first reply, that a replay does not depend on the catalog of the moment, that a
 * request without the header is never a replay, the 409/422 bodies, the checkout token used up by
 * the subscription, and a coupon's last redemption taken between the check and the write.
 *
 * Each test loads the checkout modules afresh (vi.resetModules + import), so what they compute
 * when they load (the record lifetime) is computed inside the test that checks it.
 */
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { listCoupons } from "../../shared/db/catalog-repo.ts";
import type { SubscribeInput, SubscribeStore } from "../../shared/domain/checkout/subscribe.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { failure, makeCatalog, scan } from "../support/checkout.ts";

const PAGE = "https://www.example.com.br/assinar";
/** A customer as the request schema hands it over (phone in E.164, CNPJ without separators). */
const customer = { name: "Maria Silva", email: "maria@empresa.com.br", phone: "+5511912345678", cnpj: "11222333000181" };
const T0 = new Date("2026-11-21T12:00:00.500Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let cat: Awaited<ReturnType<typeof makeCatalog>>;
let seq = 0;
const email = () => `replay-${process.pid}-${++seq}@empresa.com.br`;

beforeAll(async () => {
  cat = await makeCatalog([
    { kind: "percent", value: 20, duration: "once", valid_until: "2026-11-21T13:00:00Z" },
    { kind: "fixed", value: 1000, duration: "once", max_redemptions: 1 },
  ]);
});

beforeEach(() => {
  vi.resetModules();
});

async function load() {
  const checkout = await import("../../shared/domain/checkout/checkout.ts");
  const { subscribe } = await import("../../shared/domain/checkout/subscribe.ts");
  const { checkoutRepo } = await import("../../shared/db/checkout-repo.ts");
  return { ...checkout, subscribe, repo: checkoutRepo };
}

function body(userEmail: string, over: Partial<SubscribeInput> = {}): SubscribeInput {
  return {
    plan: cat.plan.slug,
    billing_cycle: "monthly",
    additional_inboxes: 2,
    account_name: "Empresa Ltda",
    user: { name: "Maria Silva", email: userEmail, password: "s3nha-forte-123" },
    customer,
    ...over,
  };
}

describe("Idempotency-Key", () => {
  it("replays the first reply for 24 hours; from then on the key is free for a new request", async () => {
    const { subscribe, repo } = await load();
    const key = `window-${process.pid}`;
    const first = body(email());
    const expiry = Date.parse("2026-11-22T12:00:00.000Z"); // T0 (whole seconds) + 24 h
    const other = body(email());

    const created = await subscribe(repo, first, key, T0);
    const replayed = await subscribe(repo, { ...first, user: { ...first.user } }, key, new Date(expiry - 1));
    const mismatch = await failure(subscribe(repo, other, key, new Date(expiry - 1)));
    const afterExpiry = await subscribe(repo, other, key, new Date(expiry));

    expect(created.replayed).toBe(false);
    expect(replayed).toEqual({ reply: created.reply, replayed: true });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body()).toEqual({ error: "Idempotency-Key was already used with a different request body", code: "idempotency_mismatch" });
    expect(afterExpiry.replayed).toBe(false);
    expect(afterExpiry.reply.user.email).toBe(other.user.email);
    expect(afterExpiry.reply.account.id).not.toBe(created.reply.account.id);
  });

  it("a retry gets the first reply even after the coupon it used has expired", async () => {
    const { subscribe, repo } = await load();
    const key = `coupon-${process.pid}`;
    const code = cat.extra[0]!; // valid until T0 + 1 h
    const req = body(email(), { coupon: code });

    const created = await subscribe(repo, req, key, T0);
    const retry = await subscribe(repo, req, key, at(2 * HOUR));
    const anew = await failure(subscribe(repo, body(email(), { coupon: code }), undefined, at(2 * HOUR)));

    expect(created.reply.subscription.coupon).toBe(code);
    expect(retry).toEqual({ reply: created.reply, replayed: true });
    expect(anew.status).toBe(422);
    expect(anew.body()).toMatchObject({ errors: [{ field: "coupon", code: "expired", message: "has expired" }] });
  });

  it("a request without the header is never answered from a stored reply: the same body again is a new request", async () => {
    const { subscribe, repo } = await load();
    const req = body(email());
    // "undefined" is a well-formed key (a client may well send its unset variable).
    await subscribe(repo, req, "undefined", T0);

    const again = await failure(subscribe(repo, req, undefined, at(MINUTE)));

    expect(again.status).toBe(422);
    expect(again.body()).toEqual({
      message: "User email has already been taken",
      attributes: ["user.email"],
      errors: [{ field: "user.email", code: "taken", message: "has already been taken" }],
    });
  });
});

describe("subscribe", () => {
  it("uses up the checkout token: its customer data is deleted with the subscription", async () => {
    const { createLink, prefill, subscribe, repo } = await load();
    const link = await createLink({ catalog: repo, tokens: repo, pageUrl: PAGE }, { plan: cat.plan.slug, billing_cycle: "monthly", customer }, T0);
    const token = new URL(link.url).searchParams.get("token")!;
    expect((await prefill(repo, token, at(MINUTE))).customer).toEqual(customer);

    const created = await subscribe(repo, body(email(), { token }), undefined, at(2 * MINUTE));

    expect(created.replayed).toBe(false);
    expect(await repo.getToken(sha256Hex(token))).toBeUndefined();
    expect((await failure(prefill(repo, token, at(3 * MINUTE)))).status).toBe(404);
  });

  it("a coupon whose last redemption another subscriber takes between the check and the write: 422 on coupon, nothing created", async () => {
    const { subscribe, repo } = await load();
    const code = cat.extra[1]!; // at most 1 redemption
    const rival = body(email(), { coupon: code });
    const mine = body(email(), { coupon: code });
    // The rival's subscription commits after this request has checked the coupon, before its own write.
    const racing: SubscribeStore = {
      ...repo,
      async createSubscription(s) {
        await subscribe(repo, rival, undefined, T0);
        return repo.createSubscription(s);
      },
    };

    const err = await failure(subscribe(racing, mine, undefined, T0));

    expect(err.status).toBe(422);
    expect(err.body()).toEqual({
      message: "Coupon has reached its maximum number of redemptions",
      attributes: ["coupon"],
      errors: [{ field: "coupon", code: "exhausted", message: "has reached its maximum number of redemptions" }],
    });
    expect((await listCoupons()).find((c) => c.code === code)?.redemptions).toBe(1);
    const users = (await scan("user")).map((u) => u["email"]);
    expect(users).toContain(rival.user.email);
    expect(users).not.toContain(mine.user.email);
  });
});
