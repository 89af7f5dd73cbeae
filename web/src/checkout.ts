/**
 * The checkout page. Loaded as a blocking script in <head>, so its first lines run before the
 * body exists: the checkout token is read once, exchanged once (prefill), and removed from the
 * address bar before anything else on the page runs. It never goes to storage, a log or another
 * request's URL. Prices come from the API's own pricing function; the API stays authoritative.
 */
import { priceFor, MAX_ADDITIONAL_INBOXES, type Price } from "../../shared/domain/checkout/pricing.ts";
import { formatCnpj, normalizeCnpj } from "../../shared/domain/checkout/cnpj.ts";
import { normalizeBrazilianPhone } from "../../shared/domain/checkout/phone.ts";
import { fill, messages, pickLang, type Messages } from "./i18n.ts";

const API = "/api/v1/public_checkout";

// ---------------------------------------------------------------- the token, first of all
const address = new URL(location.href);
const query = address.searchParams;
const token = query.get("token");

interface Customer {
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
  readonly cnpj: string | null;
}

const prefilled: Promise<Customer | undefined> = token
  ? fetch(`${API}/prefill?token=${encodeURIComponent(token)}`, { cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" })
      .then(async (r) => (r.ok ? ((await r.json()) as { customer?: Customer }).customer : undefined))
      .catch(() => undefined)
  : Promise.resolve(undefined);
if (token !== null) {
  query.delete("token");
  const rest = query.toString();
  history.replaceState(history.state, "", `${address.pathname}${rest ? `?${rest}` : ""}${address.hash}`);
}

interface Plan {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly currency: "BRL";
  readonly prices: { monthly: number; yearly: number };
  readonly included_inboxes: number;
  readonly additional_inbox_prices: { monthly: number; yearly: number };
}
type Cycle = "monthly" | "yearly";

const plansLoaded: Promise<Plan[] | undefined> = fetch(`${API}/plans`, { credentials: "omit" })
  .then(async (r) => (r.ok ? ((await r.json()) as { plans: Plan[] }).plans : undefined))
  .catch(() => undefined);

const lang = pickLang(query.get("lang"), navigator.languages ?? [navigator.language]);
const t: Messages = messages(lang);

// ---------------------------------------------------------------- HTTP
interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}
type Outcome =
  | { kind: "ok"; body: unknown }
  | { kind: "invalid"; errors: FieldError[] }
  | { kind: "rate"; seconds: number }
  | { kind: "conflict"; code: string }
  | { kind: "server" }
  | { kind: "network" };

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  let res: Response;
  try {
    res = await fetch(`${API}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      credentials: "omit",
      referrerPolicy: "no-referrer",
    });
  } catch {
    return { kind: "network" };
  }
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.ok) return { kind: "ok", body: json };
  if (res.status === 422) return { kind: "invalid", errors: Array.isArray(json["errors"]) ? (json["errors"] as FieldError[]) : [] };
  if (res.status === 429) {
    const s = Number(res.headers.get("retry-after") ?? json["retry_after"] ?? 60);
    return { kind: "rate", seconds: Number.isFinite(s) && s > 0 ? Math.ceil(s) : 60 };
  }
  if (res.status === 409) return { kind: "conflict", code: String(json["code"] ?? "") };
  return { kind: "server" };
}

// ---------------------------------------------------------------- DOM helpers
type Attrs = Record<string, string | boolean>;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false) continue;
    el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...kids);
  return el;
}

interface Field {
  readonly wrap: HTMLElement;
  readonly input: HTMLInputElement | HTMLTextAreaElement;
  readonly err: HTMLElement;
}

function field(id: string, label: string, attrs: Attrs = {}, hint?: string, multiline = false): Field {
  const err = h("p", { id: `${id}-err`, class: "err" });
  const described = hint ? `${id}-hint ${id}-err` : `${id}-err`;
  const input = multiline
    ? h("textarea", { id, name: id, rows: "4", "aria-describedby": described, ...attrs })
    : h("input", { id, name: id, type: "text", "aria-describedby": described, ...attrs });
  const wrap = h("div", { class: "field" }, h("label", { for: id }, label), input);
  if (hint) wrap.append(h("p", { id: `${id}-hint`, class: "hint" }, hint));
  wrap.append(err);
  return { wrap, input, err };
}

function setError(f: Field, message: string | undefined): void {
  f.err.textContent = message ?? "";
  if (message) f.input.setAttribute("aria-invalid", "true");
  else f.input.removeAttribute("aria-invalid");
}

/** `12ABC345` → `12.ABC.345`, as the visitor types. */
export function maskCnpj(value: string): string {
  const s = value.toUpperCase().replace(/[^0-9A-Z]/g, "").slice(0, 14);
  const parts = [s.slice(0, 2), s.slice(2, 5), s.slice(5, 8), s.slice(8, 12), s.slice(12)];
  let out = parts[0]!;
  if (parts[1]) out += `.${parts[1]}`;
  if (parts[2]) out += `.${parts[2]}`;
  if (parts[3]) out += `/${parts[3]}`;
  if (parts[4]) out += `-${parts[4]}`;
  return out;
}

/** `+5511912345678` → `(11) 91234-5678`. */
function formatPhone(e164: string): string {
  const d = e164.slice(3);
  const sub = d.slice(2);
  return `(${d.slice(0, 2)}) ${sub.slice(0, sub.length - 4)}-${sub.slice(-4)}`;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

// ---------------------------------------------------------------- idempotency of subscribe
const IDEMPOTENCY = "conversa.checkout.idempotency-key";
let memoryKey: string | undefined;
function idempotencyKey(fresh: boolean): string {
  let key: string | null | undefined;
  try {
    key = fresh ? null : sessionStorage.getItem(IDEMPOTENCY);
  } catch {
    key = fresh ? undefined : memoryKey;
  }
  if (!key) {
    key = crypto.randomUUID();
    try {
      sessionStorage.setItem(IDEMPOTENCY, key);
    } catch {
      memoryKey = key;
    }
  }
  return key;
}
function dropIdempotencyKey(): void {
  memoryKey = undefined;
  try {
    sessionStorage.removeItem(IDEMPOTENCY);
  } catch {
    // storage disabled: the in-memory key is gone already
  }
}

// ---------------------------------------------------------------- the page
interface AppliedCoupon {
  readonly code: string;
  readonly kind: "percent" | "fixed";
  readonly value: number;
}

function render(plans: Plan[]): void {
  const root = document.getElementById("app")!;
  const money = (cents: number, currency: string) => new Intl.NumberFormat(lang, { style: "currency", currency }).format(cents / 100);

  const wantedPlan = query.get("plan");
  let plan = plans.find((p) => p.slug === wantedPlan) ?? plans[0]!;
  let cycle: Cycle = query.get("cycle") === "yearly" ? "yearly" : "monthly";
  const wantedInboxes = Number(query.get("inboxes") ?? 0);
  let inboxes = Number.isInteger(wantedInboxes) ? Math.min(Math.max(wantedInboxes, 0), MAX_ADDITIONAL_INBOXES) : 0;
  let coupon: AppliedCoupon | undefined;

  // Plan, cycle, inboxes, price
  const planLabels = new Map<string, HTMLElement>();
  const planBox = h("fieldset", { class: "plans" }, h("legend", {}, t.plan));
  for (const p of plans) {
    const price = h("span", { class: "plan-price" });
    planLabels.set(p.slug, price);
    const radio = h("input", { type: "radio", name: "plan", value: p.slug, id: `plan-${p.slug}`, checked: p === plan });
    radio.addEventListener("change", () => {
      plan = p;
      update();
    });
    planBox.append(
      h("label", { class: "plan", for: `plan-${p.slug}` }, radio, h("span", { class: "plan-name" }, p.name), price, h("span", { class: "plan-desc" }, p.description)),
    );
  }
  const cycleBox = h("fieldset", { class: "cycle" }, h("legend", {}, t.cycle));
  for (const c of ["monthly", "yearly"] as const) {
    const radio = h("input", { type: "radio", name: "cycle", value: c, id: `cycle-${c}`, checked: c === cycle });
    radio.addEventListener("change", () => {
      cycle = c;
      update();
    });
    cycleBox.append(h("label", { for: `cycle-${c}` }, radio, ` ${t[c]}`));
  }
  const inboxField = field("f-inboxes", t.inboxes, { type: "number", min: "0", max: String(MAX_ADDITIONAL_INBOXES), step: "1", inputmode: "numeric", value: String(inboxes) }, " ");
  inboxField.input.addEventListener("input", () => {
    const n = Number(inboxField.input.value);
    const ok = inboxField.input.value !== "" && Number.isInteger(n) && n >= 0 && n <= MAX_ADDITIONAL_INBOXES;
    setError(inboxField, ok ? undefined : t.invalid);
    if (ok) {
      inboxes = n;
      update();
    }
  });
  const inboxHint = inboxField.wrap.querySelector(".hint")!;
  const subtotalOut = h("dd", { id: "price-subtotal" });
  const discountOut = h("dd", { id: "price-discount" });
  const totalOut = h("dd", { id: "price-total" });
  const discountRow = h("div", { class: "row" }, h("dt", {}, t.discount), discountOut);
  const priceBox = h(
    "dl",
    { class: "price", id: "price", "aria-live": "polite" },
    h("div", { class: "row" }, h("dt", {}, t.subtotal), subtotalOut),
    discountRow,
    h("div", { class: "row total" }, h("dt", {}, t.total), totalOut),
  );

  // Coupon
  const couponField = field("f-coupon", t.coupon, { autocomplete: "off", maxlength: "40", value: query.get("coupon") ?? "" });
  const couponNote = h("p", { id: "coupon-status", class: "ok", role: "status" });
  const applyButton = h("button", { type: "button", class: "secondary", id: "coupon-apply" }, t.apply);
  couponField.wrap.insertBefore(applyButton, couponField.err);
  couponField.wrap.append(couponNote);
  couponField.input.setAttribute("aria-describedby", "f-coupon-err coupon-status");
  const applyCoupon = async (): Promise<void> => {
    const code = couponField.input.value.trim().toUpperCase();
    coupon = undefined;
    couponNote.textContent = "";
    setError(couponField, undefined);
    if (!code) return update();
    applyButton.disabled = true;
    const out = await post("coupon", { code, plan: plan.slug, billing_cycle: cycle, additional_inboxes: inboxes });
    applyButton.disabled = false;
    if (out.kind === "ok") {
      const b = out.body as { valid: boolean; reason?: string; coupon?: AppliedCoupon };
      if (b.valid && b.coupon) {
        coupon = { code, kind: b.coupon.kind, value: b.coupon.value };
        couponNote.textContent = fill(t.couponApplied, { code });
      } else {
        const key = `reason_${b.reason ?? "not_found"}` as keyof Messages;
        setError(couponField, t[key] ?? t.reason_not_found);
      }
    } else showOutcome(out, couponField);
    update();
  };
  applyButton.addEventListener("click", () => void applyCoupon());
  couponField.input.addEventListener("keydown", (e) => {
    if ((e as KeyboardEvent).key === "Enter") {
      e.preventDefault();
      void applyCoupon();
    }
  });

  function update(): void {
    for (const p of plans) {
      planLabels.get(p.slug)!.textContent = `${money(p.prices[cycle], p.currency)}${cycle === "monthly" ? t.perMonth : t.perYear}`;
    }
    inboxHint.textContent = fill(t.inboxesHint, { n: plan.included_inboxes });
    const price: Price = priceFor(plan, cycle, inboxes, coupon);
    subtotalOut.textContent = money(price.subtotal, price.currency);
    discountOut.textContent = `− ${money(price.discount, price.currency)}`;
    discountRow.hidden = price.discount === 0;
    totalOut.textContent = `${money(price.total, price.currency)}${cycle === "monthly" ? t.perMonth : t.perYear}`;
    totalOut.dataset["cents"] = String(price.total);
  }

  // Customer form
  const f = {
    name: field("f-name", t.name, { autocomplete: "name", required: true, maxlength: "255" }),
    email: field("f-email", t.email, { type: "email", autocomplete: "email", required: true, maxlength: "254" }),
    phone: field("f-phone", t.phone, { type: "tel", autocomplete: "tel", required: true, maxlength: "40" }, t.phoneHint),
    cnpj: field("f-cnpj", t.cnpj, { autocomplete: "off", required: true, maxlength: "18", autocapitalize: "characters", spellcheck: "false" }, t.cnpjHint),
    account: field("f-account", t.accountName, { autocomplete: "organization", required: true, maxlength: "255" }),
    password: field("f-password", t.password, { type: "password", autocomplete: "new-password", required: true, minlength: "8", maxlength: "128" }, t.passwordHint),
  };
  f.cnpj.input.addEventListener("input", () => {
    f.cnpj.input.value = maskCnpj(f.cnpj.input.value);
  });
  f.phone.input.addEventListener("blur", () => {
    const e164 = normalizeBrazilianPhone(f.phone.input.value);
    if (e164) f.phone.input.value = formatPhone(e164);
  });
  const submit = h("button", { type: "submit", id: "subscribe" }, t.subscribe);
  const notice = h("p", { id: "notice", class: "notice", role: "alert" });
  const form = h(
    "form",
    { id: "checkout", novalidate: true },
    h("section", { "aria-labelledby": "h-plan" }, h("h2", { id: "h-plan" }, t.yourPlan), planBox, cycleBox, inboxField.wrap, priceBox, couponField.wrap),
    h("section", { "aria-labelledby": "h-you" }, h("h2", { id: "h-you" }, t.you), ...Object.values(f).map((x) => x.wrap)),
    notice,
    submit,
  );

  const fieldFor: Record<string, Field> = {
    "user.name": f.name,
    "customer.name": f.name,
    "user.email": f.email,
    "customer.email": f.email,
    "customer.phone": f.phone,
    "customer.cnpj": f.cnpj,
    account_name: f.account,
    "user.password": f.password,
    coupon: couponField,
    additional_inboxes: inboxField,
  };

  function showOutcome(out: Outcome, fallback: Field | undefined, where: HTMLElement = notice, fields: Record<string, Field> = fieldFor): void {
    where.textContent = "";
    if (out.kind === "invalid") {
      let first: Field | undefined;
      for (const e of out.errors) {
        const target = fields[e.field] ?? fallback;
        const words = e.code === "taken" ? t.taken : e.code === "invalid" ? t.invalid : e.message;
        if (target) {
          setError(target, words);
          first ??= target;
        } else where.textContent = `${e.field}: ${words}`;
      }
      if (first) {
        where.textContent = t.fixFields;
        first.input.focus();
      }
    } else if (out.kind === "rate") where.textContent = fill(t.rateLimited, { s: out.seconds });
    else if (out.kind === "network") where.textContent = t.network;
    else if (out.kind === "conflict") where.textContent = t.inProgress;
    else if (out.kind === "server") where.textContent = t.serverError;
  }

  function check(): Field | undefined {
    const v = (x: Field) => x.input.value.trim();
    const problems: [Field, string | undefined][] = [
      [f.name, v(f.name) ? undefined : t.required],
      [f.email, !v(f.email) ? t.required : EMAIL.test(v(f.email)) ? undefined : t.invalidEmail],
      [f.phone, !v(f.phone) ? t.required : normalizeBrazilianPhone(v(f.phone)) ? undefined : t.invalidPhone],
      [f.cnpj, !v(f.cnpj) ? t.required : normalizeCnpj(v(f.cnpj)) ? undefined : t.invalidCnpj],
      [f.account, v(f.account) ? undefined : t.required],
      [f.password, f.password.input.value.length >= 8 && f.password.input.value.length <= 128 ? undefined : t.passwordLength],
    ];
    let first: Field | undefined;
    for (const [x, msg] of problems) {
      setError(x, msg);
      if (msg) first ??= x;
    }
    return first;
  }

  let busy = false;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (busy) return;
    notice.textContent = "";
    const bad = check();
    if (bad) {
      notice.textContent = t.fixFields;
      bad.input.focus();
      return;
    }
    const v = (x: Field) => x.input.value.trim();
    const customer = { name: v(f.name), email: v(f.email), phone: normalizeBrazilianPhone(v(f.phone))!, cnpj: normalizeCnpj(v(f.cnpj))! };
    const typedCoupon = couponField.input.value.trim().toUpperCase();
    const body = {
      plan: plan.slug,
      billing_cycle: cycle,
      additional_inboxes: inboxes,
      ...(coupon ? { coupon: coupon.code } : typedCoupon ? { coupon: typedCoupon } : {}),
      account_name: v(f.account),
      user: { name: customer.name, email: customer.email, password: f.password.input.value },
      customer,
      ...(exchangedToken ? { token: exchangedToken } : {}),
    };
    busy = true;
    submit.disabled = true;
    submit.textContent = t.sending;
    void subscribe(body).finally(() => {
      busy = false;
      submit.disabled = false;
      submit.textContent = t.subscribe;
    });
  });

  async function subscribe(body: unknown): Promise<void> {
    let out = await post("subscribe", body, { "idempotency-key": idempotencyKey(false) });
    // The key belongs to another submission (the visitor changed something): a new one.
    if (out.kind === "conflict" && out.code === "idempotency_mismatch") out = await post("subscribe", body, { "idempotency-key": idempotencyKey(true) });
    if (out.kind === "invalid") dropIdempotencyKey();
    if (out.kind === "ok") return success(out.body as SubscribeReply);
    showOutcome(out, undefined);
  }

  interface SubscribeReply {
    account: { id: number; name: string };
    subscription: { status: "pending_payment" | "active" | "canceled" };
    access_token: string;
  }

  function success(r: SubscribeReply): void {
    const key = h("input", { id: "api-key", readonly: true, value: r.access_token, "aria-describedby": "api-key-once", spellcheck: "false" });
    const copied = h("p", { id: "copy-status", role: "status" });
    const copy = h("button", { type: "button", id: "copy-key" }, t.copy);
    copy.addEventListener("click", () => {
      const done = () => {
        copied.textContent = t.copied;
      };
      const fallback = () => {
        key.select();
        document.execCommand("copy");
        done();
      };
      if (navigator.clipboard) navigator.clipboard.writeText(r.access_token).then(done, fallback);
      else fallback();
    });
    const title = h("h2", { id: "h-success", tabindex: "-1" }, t.successTitle);
    const statusKey = `status_${r.subscription.status}` as keyof Messages;
    const panel = h(
      "section",
      { id: "success", "aria-labelledby": "h-success" },
      title,
      h(
        "dl",
        {},
        h("div", { class: "row" }, h("dt", {}, t.account), h("dd", { id: "success-account", "data-id": String(r.account.id) }, `${r.account.name} (#${r.account.id})`)),
        h("div", { class: "row" }, h("dt", {}, t.status), h("dd", { id: "success-status" }, t[statusKey] ?? r.subscription.status)),
      ),
      h("div", { class: "field" }, h("label", { for: "api-key" }, t.apiKey), key, h("p", { id: "api-key-once", class: "hint" }, t.apiKeyOnce)),
      copy,
      copied,
    );
    form.replaceWith(panel);
    title.focus();
  }

  // Custom plan (quote)
  const q = {
    name: field("q-name", t.name, { autocomplete: "name", required: true, maxlength: "255" }),
    email: field("q-email", t.email, { type: "email", autocomplete: "email", required: true, maxlength: "254" }),
    phone: field("q-phone", `${t.phone} ${t.optional}`, { type: "tel", autocomplete: "tel", maxlength: "40" }),
    company: field("q-company", `${t.company} ${t.optional}`, { autocomplete: "organization", maxlength: "255" }),
    inboxes: field("q-inboxes", `${t.quoteInboxes} ${t.optional}`, { type: "number", min: "1", step: "1", inputmode: "numeric" }),
    agents: field("q-agents", `${t.agents} ${t.optional}`, { type: "number", min: "1", step: "1", inputmode: "numeric" }),
    message: field("q-message", t.message, { required: true, maxlength: "5000" }, undefined, true),
  };
  const quoteNotice = h("p", { id: "quote-notice", class: "notice", role: "alert" });
  const quoteButton = h("button", { type: "submit", id: "quote-send", class: "secondary" }, t.sendQuote);
  const quoteForm = h("form", { id: "quote", novalidate: true }, h("p", {}, t.quoteLead), ...Object.values(q).map((x) => x.wrap), quoteNotice, quoteButton);
  const quoteFields: Record<string, Field> = { name: q.name, email: q.email, phone: q.phone, company: q.company, inboxes: q.inboxes, agents: q.agents, message: q.message };
  quoteForm.addEventListener("submit", (e) => {
    e.preventDefault();
    if (quoteButton.disabled) return;
    const v = (x: Field) => x.input.value.trim();
    const checks: [Field, string | undefined][] = [
      [q.name, v(q.name) ? undefined : t.required],
      [q.email, EMAIL.test(v(q.email)) ? undefined : t.invalidEmail],
      [q.phone, !v(q.phone) || normalizeBrazilianPhone(v(q.phone)) ? undefined : t.invalidPhone],
      [q.message, v(q.message) ? undefined : t.required],
    ];
    let first: Field | undefined;
    for (const [x, msg] of checks) {
      setError(x, msg);
      if (msg) first ??= x;
    }
    if (first) {
      quoteNotice.textContent = t.fixFields;
      first.input.focus();
      return;
    }
    const num = (x: Field) => (v(x) ? Number(v(x)) : undefined);
    const body = {
      name: v(q.name),
      email: v(q.email),
      ...(v(q.phone) ? { phone: v(q.phone) } : {}),
      ...(v(q.company) ? { company: v(q.company) } : {}),
      ...(num(q.inboxes) !== undefined ? { inboxes: num(q.inboxes) } : {}),
      ...(num(q.agents) !== undefined ? { agents: num(q.agents) } : {}),
      message: v(q.message),
    };
    quoteButton.disabled = true;
    void post("quote", body).then((out) => {
      quoteButton.disabled = false;
      if (out.kind === "ok") {
        quoteForm.replaceWith(h("p", { id: "quote-sent", role: "status", class: "ok" }, t.quoteSent));
        return;
      }
      showOutcome(out, undefined, quoteNotice, quoteFields);
    });
  });

  root.append(
    form,
    h("details", { id: "custom" }, h("summary", {}, t.quoteTitle), quoteForm),
  );
  update();
  if (couponField.input.value) void applyCoupon();

  void prefilled.then((c) => {
    if (!c) return;
    exchangedToken = token ?? undefined;
    const set = (x: Field, value: string | null) => {
      if (value && !x.input.value) x.input.value = value;
    };
    set(f.name, c.name);
    set(f.email, c.email);
    set(f.phone, c.phone ? formatPhone(c.phone) : null);
    set(f.cnpj, c.cnpj ? formatCnpj(c.cnpj) : null);
    document.body.dataset["prefilled"] = "true";
  });
}

/** The token of a successful prefill, sent with subscribe so that its stored data is deleted. */
let exchangedToken: string | undefined;

function start(): void {
  document.documentElement.lang = lang;
  document.title = t.title;
  const root = document.getElementById("app")!;
  root.append(h("h1", {}, t.title), h("p", { class: "lead" }, t.lead));
  void plansLoaded.then((plans) => {
    if (!plans || plans.length === 0) {
      root.append(h("p", { class: "notice", role: "alert" }, t.noPlans));
      return;
    }
    render(plans);
    document.body.dataset["ready"] = "true";
  });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
else start();
