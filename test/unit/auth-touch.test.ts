/** `last_used_at` bookkeeping in authenticate(): at most one write per key per interval, never failing a request. */
import { describe, expect, it } from "vitest";
import { authenticate, KEY_TOUCH_INTERVAL_SECONDS, type KeyLookup, type KeyRecord } from "../../shared/domain/auth.ts";
import { newApiKey, sha256Hex } from "../../shared/domain/secrets.ts";

/** An in-memory KeyLookup (the domain's port) that records touches, or fails them. */
function store(key: string, keyId: string, failTouch = false): KeyLookup & { touches: { keyId: string; at: number }[] } {
  const touches: { keyId: string; at: number }[] = [];
  return {
    touches,
    async findKeyByHash(hash) {
      return hash === sha256Hex(key) ? { userId: 7, keyId } : undefined;
    },
    async findRole() {
      return "agent";
    },
    async touchKey(k: KeyRecord, nowSec: number) {
      if (failTouch) throw new Error("throttle table unavailable");
      touches.push({ keyId: k.keyId, at: nowSec });
    },
  };
}

const t0 = Date.UTC(2032, 0, 1) / 1000;
const at = (s: number) => new Date((t0 + s) * 1000);

describe("authenticate: last_used_at", () => {
  it("records the first use, skips uses within the interval, records again after it", async () => {
    const key = newApiKey(7).key;
    const s = store(key, "touch-a");

    await authenticate(s, key, undefined, at(0));
    await authenticate(s, key, { accountId: "1", needed: "agent" }, at(KEY_TOUCH_INTERVAL_SECONDS - 1));
    await authenticate(s, key, undefined, at(KEY_TOUCH_INTERVAL_SECONDS));

    expect(s.touches).toEqual([
      { keyId: "touch-a", at: t0 },
      { keyId: "touch-a", at: t0 + KEY_TOUCH_INTERVAL_SECONDS },
    ]);
  });

  it("still authenticates when the write fails, and tries again on the next request", async () => {
    const key = newApiKey(7).key;
    const failing = store(key, "touch-b", true);

    await expect(authenticate(failing, key, undefined, at(0))).resolves.toEqual({ userId: 7, keyId: "touch-b" });
    const working = { ...store(key, "touch-b"), findKeyByHash: failing.findKeyByHash };
    await authenticate(working, key, undefined, at(1));

    expect(working.touches).toEqual([{ keyId: "touch-b", at: t0 + 1 }]);
  });

  it("records nothing for an unknown key", async () => {
    const s = store(newApiKey(7).key, "touch-c");

    await expect(authenticate(s, newApiKey(7).key, undefined, at(0))).rejects.toMatchObject({ status: 401 });
    expect(s.touches).toEqual([]);
  });
});
