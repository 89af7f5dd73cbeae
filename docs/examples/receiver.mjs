// A Conversa webhook receiver: verifies the Standard Webhooks signature (with either secret
// during a rotation), drops duplicates by `webhook-id`, answers at once and works afterwards.
//
//   npm install standardwebhooks
//   WEBHOOK_SECRETS=whsec_new,whsec_old PORT=9000 node receiver.mjs
//
// WEBHOOK_SECRETS: comma-separated, the current secret first; keep the old one listed until the
// rotation's `previous_secret_expires_at`, then remove it.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { Webhook } from "standardwebhooks";

/**
 * @param {{ secrets: string[], onEvent: (event: object, meta: { id: string, test: boolean }) => unknown | Promise<unknown>, seenTtlMs?: number }} options
 * @returns {import("node:http").Server}
 */
export function createReceiver({ secrets, onEvent, seenTtlMs = 24 * 3600 * 1000 }) {
  const verifiers = secrets.map((s) => new Webhook(s));
  /** webhook-id -> when first seen: a delivery may arrive more than once (retries, resends). */
  const seen = new Map();

  const verify = (body, headers) => {
    for (const v of verifiers) {
      try {
        return v.verify(body, headers); // checks the signature(s) and a 5-minute timestamp tolerance
      } catch {
        // try the next secret
      }
    }
    return undefined;
  };

  return createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = {
        "webhook-id": String(req.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
      };
      const event = verify(body, headers);
      if (event === undefined) {
        res.writeHead(401).end("bad signature");
        return;
      }
      const id = headers["webhook-id"];
      const now = Date.now();
      for (const [k, at] of seen) if (now - at > seenTtlMs) seen.delete(k);
      // Answer fast (2xx within the sender's timeout, 5 s by default); do the work afterwards.
      res.writeHead(204).end();
      if (seen.has(id)) return; // a duplicate: already handled
      seen.set(id, now);
      Promise.resolve()
        .then(() => onEvent(event, { id, test: req.headers["webhook-test"] === "true" }))
        .catch((err) => console.error(`webhook ${id} failed`, err));
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const secrets = (process.env.WEBHOOK_SECRETS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!secrets.length) throw new Error("set WEBHOOK_SECRETS (comma-separated, the current secret first)");
  const port = Number(process.env.PORT ?? 9000);
  createReceiver({ secrets, onEvent: (event, meta) => console.log(meta.test ? "test" : "event", meta.id, JSON.stringify(event)) }).listen(port, () =>
    console.log(`listening on http://127.0.0.1:${port}/`),
  );
}
