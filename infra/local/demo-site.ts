/**
 * Sandbox only: a small pricing page at `/` standing for the marketing site. It lists the plans
 * (GET plans), makes a checkout link (POST link, with an optional customer, as the site's server
 * would) and opens it: the checkout page at `/checkout`, served through the route table. Prices
 * follow the chosen billing cycle; a refused link shows the API's message.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { requestUrl } from "./request-url.ts";

/** The page the sandbox's links open: the operator's, else the sandbox's own `/checkout`. */
export const sandboxCheckoutPageUrl = (apiBase: string, env: Readonly<Record<string, string | undefined>>): string =>
  env["CHECKOUT_PAGE_URL"] || `${apiBase}/checkout`;

const HTML = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conversa: planos (site de demonstração)</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/demo-site.css">
<script src="/demo-site.js" defer></script>
</head>
<body>
<main>
<p class="tag">Site de demonstração do sandbox (representa o site de marketing)</p>
<h1>Planos do Conversa</h1>
<form id="who">
<fieldset>
<legend>Cliente (opcional: vai para o link como token opaco)</legend>
<label>Nome <input id="c-name" autocomplete="name"></label>
<label>E-mail <input id="c-email" type="email" autocomplete="email"></label>
<label>Telefone <input id="c-phone" type="tel"></label>
<label>CNPJ <input id="c-cnpj"></label>
<label>Cupom <input id="c-coupon"></label>
<label>Ciclo <select id="c-cycle"><option value="monthly">mensal</option><option value="yearly">anual</option></select></label>
</fieldset>
</form>
<ul id="plans"></ul>
<p id="error" role="alert"></p>
</main>
</body>
</html>
`;

const CSS = `body{font-family:system-ui,sans-serif;margin:0;background:#fafafa;color:#1b1b1f}main{max-width:48rem;margin:0 auto;padding:1.5rem}
.tag{background:#fff4ce;padding:.25rem .5rem;display:inline-block}fieldset{display:grid;gap:.5rem;border:1px solid #ccc}
label{display:flex;justify-content:space-between;gap:1rem}ul{list-style:none;padding:0;display:grid;gap:1rem}
li{background:#fff;border:1px solid #ccc;border-radius:.5rem;padding:1rem}button{font:inherit;padding:.5rem 1rem;background:#0b57d0;color:#fff;border:0;border-radius:.375rem}
#error{color:#b3261e}`;

const JS = `"use strict";
const val = (id) => document.getElementById(id).value.trim();
const money = (c) => (c / 100).toLocaleString("pt-BR", { style: "currency", currency: "BRL" });
const say = (text) => { document.getElementById("error").textContent = text; };
let plans = [];
async function go(slug) {
  say("");
  const customer = { name: val("c-name"), email: val("c-email"), phone: val("c-phone"), cnpj: val("c-cnpj") };
  const body = { plan: slug, billing_cycle: val("c-cycle") };
  if (val("c-coupon")) body.coupon = val("c-coupon");
  if (customer.name && customer.email) {
    body.customer = { name: customer.name, email: customer.email };
    if (customer.phone) body.customer.phone = customer.phone;
    if (customer.cnpj) body.customer.cnpj = customer.cnpj;
  }
  let res, json;
  try {
    res = await fetch("/api/v1/public_checkout/link", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    json = await res.json().catch(() => ({}));
  } catch {
    return say("Não foi possível falar com a API.");
  }
  if (res.status !== 201) return say("Link recusado (HTTP " + res.status + "): " + (json.message || json.error || "sem mensagem"));
  location.href = json.url;
}
function show() {
  const yearly = val("c-cycle") === "yearly";
  const list = document.getElementById("plans");
  list.replaceChildren();
  for (const p of plans) {
    const li = document.createElement("li");
    const h = document.createElement("h2");
    h.textContent = p.name + ": " + money(yearly ? p.prices.yearly : p.prices.monthly) + (yearly ? "/ano" : "/mês");
    const d = document.createElement("p");
    d.textContent = p.description;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Assinar " + p.name;
    b.addEventListener("click", () => void go(p.slug));
    li.append(h, d, b);
    list.append(li);
  }
}
document.getElementById("c-cycle").addEventListener("change", show);
fetch("/api/v1/public_checkout/plans")
  .then((r) => (r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status))))
  .then((json) => { plans = json.plans; show(); })
  .catch((e) => say("Não foi possível carregar os planos (" + e.message + ")."));
`;

const FILES: Record<string, { body: string; type: string }> = {
  "/": { body: HTML, type: "text/html; charset=utf-8" },
  "/demo-site.css": { body: CSS, type: "text/css; charset=utf-8" },
  "/demo-site.js": { body: JS, type: "text/javascript; charset=utf-8" },
};

/** Answers the demo site's own paths; false for everything else (the route table's). */
export function serveDemoSite(req: IncomingMessage, res: ServerResponse): boolean {
  const path = requestUrl(req).pathname;
  // HEAD as GET (Node leaves the body out); own names only (`/__proto__` is no file).
  const file = (req.method === "GET" || req.method === "HEAD") && Object.hasOwn(FILES, path) ? FILES[path] : undefined;
  if (!file) return false;
  res.writeHead(200, {
    "content-type": file.type,
    "cache-control": "no-cache",
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; frame-ancestors 'none'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  });
  res.end(file.body);
  return true;
}
