/**
 * The checkout page. Loaded as a blocking script in <head>, so its first lines run before the
 * body exists: the checkout token (in the query or the fragment) is read once, exchanged
 * (prefill), and removed from the address bar before anything else on the page runs. It never
 * goes to storage, a log or another request's URL; it stays in memory only, to try the exchange
 * again when it failed for a reason other than an unknown or expired token. Prices come from the
 * API's own pricing function; the API stays authoritative.
 */
import { priceFor, MAX_ADDITIONAL_INBOXES, type Price } from "../../shared/domain/checkout/pricing.ts";
import { formatCnpj, normalizeCnpj } from "../../shared/domain/checkout/cnpj.ts";
import { normalizeBrazilianPhone } from "../../shared/domain/checkout/phone.ts";
import { validEmail } from "./email.ts";
import { fill, messages, pickLang, type Messages } from "./i18n.ts";

const API = "/api/v1/public_checkout";

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
  /** Any other 4xx (a 404 among them). */
  | { kind: "refused" }
  | { kind: "server" }
  | { kind: "network" };

/** A request to the API on this origin (`path` from its first slash), its reply sorted by what the page does with it. */
async function call(path: string, init: RequestInit = {}): Promise<Outcome> {
  let res: Response;
  try {
    res = await fetch(`${API}${path}`, { credentials: "omit", referrerPolicy: "no-referrer", ...init });
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
  return res.status >= 500 ? { kind: "server" } : { kind: "refused" };
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Outcome> =>
  call(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

// ---------------------------------------------------------------- the token, first of all
const address = new URL(location.href);
const query = address.searchParams;
const fragment = new URLSearchParams(address.hash.slice(1));
const token = query.get("token") ?? fragment.get("token");

interface Customer {
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
  readonly cnpj: string | null;
}

const exchange = (): Promise<Outcome> => call(`/prefill?token=${encodeURIComponent(token ?? "")}`, { cache: "no-store" });
const prefilled: Promise<Outcome> | undefined = token ? exchange() : undefined;
if (token !== null) {
  const hash = fragment.has("token") ? (fragment.delete("token"), fragment.toString()) : address.hash.slice(1);
  query.delete("token");
  const rest = query.toString();
  history.replaceState(history.state, "", `${address.pathname}${rest ? `?${rest}` : ""}${hash ? `#${hash}` : ""}`);
}
/**
 * The token sent with subscribe (so that its stored data is deleted): kept until the API says it
 * is unknown or expired.
 */
let liveToken: string | undefined = token ?? undefined;

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

const loadPlans = (): Promise<Outcome> => call("/plans");
const plansLoaded = loadPlans();

const lang = pickLang(query.get("lang"), navigator.languages ?? [navigator.language]);
const t: Messages = messages(lang);

// ---------------------------------------------------------------- words
/** "17 segundos", "11 minutos": a wait of a minute or more is said in (whole, rounded up) minutes. */
function wait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? t.second : fill(t.seconds, { n: seconds });
  const m = Math.ceil(seconds / 60);
  return m === 1 ? t.minute : fill(t.minutes, { n: m });
}

/** A 422 error in the page's language, from its stable code; the server's text only for a code the page does not know. */
function words(e: FieldError): string {
  const n = /\d+/.exec(e.message)?.[0];
  const withN = (s: string) => (n === undefined ? t.invalid : fill(s, { n }));
  const password = e.field.endsWith("password");
  switch (e.code) {
    case "blank":
      return password ? t.passwordBlank : t.required;
    case "taken":
      return t.taken;
    case "invalid":
      return e.field.endsWith("email") ? t.invalidEmail : e.field.endsWith("phone") ? t.invalidPhone : e.field.endsWith("cnpj") ? t.invalidCnpj : t.invalid;
    case "too_short":
      return password ? t.passwordLength : withN(t.tooShort);
    case "too_long":
      return password ? t.passwordLength : withN(t.tooLong);
    case "too_small":
      return withN(t.tooSmall);
    case "too_big":
      return withN(t.tooBig);
    case "inclusion":
      return t.inclusion;
    case "not_found":
    case "expired":
    case "not_applicable":
    case "exhausted":
      return t[`reason_${e.code}` as const];
    default:
      return e.message || t.invalid;
  }
}

/** What a failed request means for the visitor (a 422: its first error). */
function outcomeWords(out: Outcome): string {
  switch (out.kind) {
    case "rate":
      return fill(t.rateLimited, { wait: wait(out.seconds) });
    case "network":
      return t.network;
    case "conflict":
      return t.inProgress;
    case "invalid":
      return out.errors[0] ? words(out.errors[0]) : t.invalid;
    default:
      return t.serverError;
  }
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
  readonly duration?: "once" | "forever" | "repeating";
  readonly duration_months?: number | null;
}
interface CouponReply {
  readonly valid: boolean;
  readonly reason?: string;
  readonly coupon?: Omit<AppliedCoupon, "code">;
}
/** How a coupon check ended; "stale": a newer choice or edit made its answer moot. */
type Verdict = "applied" | "refused" | "failed" | "stale";

/** How long a coupon's discount lasts, or "" when the API does not say. */
function lasts(c: AppliedCoupon): string {
  if (c.duration === "once") return t.duration_once;
  if (c.duration === "forever") return t.duration_forever;
  if (c.duration === "repeating" && c.duration_months) return c.duration_months === 1 ? t.duration_repeating_one : fill(t.duration_repeating, { n: c.duration_months });
  return "";
}

function passwordProblem(pw: string): string | undefined {
  const length = Array.from(pw).length; // characters (code points), as the API counts them
  if (length < 8 || length > 128) return t.passwordLength;
  return pw.trim() === "" ? t.passwordBlank : undefined;
}

/** A field is a whole number in [min, max]. */
const wholeIn = (raw: string, min: number, max: number): boolean => {
  const n = Number(raw);
  return raw.trim() !== "" && Number.isInteger(n) && n >= min && n <= max;
};

function render(plans: Plan[]): void {
  const root = document.getElementById("app")!;
  const money = (cents: number, currency: string) => new Intl.NumberFormat(lang, { style: "currency", currency }).format(cents / 100);

  const wantedPlan = (query.get("plan") ?? "").trim().toLowerCase();
  const linked = plans.find((p) => p.slug === wantedPlan);
  let plan = linked ?? plans[0]!;
  let cycle: Cycle = (query.get("cycle") ?? "").trim().toLowerCase() === "yearly" ? "yearly" : "monthly";
  const wantedInboxes = Number(query.get("inboxes") ?? 0);
  let inboxes = Number.isInteger(wantedInboxes) ? Math.min(Math.max(wantedInboxes, 0), MAX_ADDITIONAL_INBOXES) : 0;
  let inboxesOk = true;

  // Plan, cycle, inboxes, price
  const planLabels = new Map<string, HTMLElement>();
  const planNote = h("p", { id: "plan-note", class: "note", role: "status" }, wantedPlan && !linked ? t.planUnknown : "");
  const planBox = h("fieldset", { class: "plans" }, h("legend", {}, t.plan), planNote);
  for (const p of plans) {
    const price = h("span", { class: "plan-price" });
    planLabels.set(p.slug, price);
    const radio = h("input", { type: "radio", name: "plan", value: p.slug, id: `plan-${p.slug}`, checked: p === plan });
    radio.addEventListener("change", () => {
      plan = p;
      choiceChanged();
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
      choiceChanged();
    });
    cycleBox.append(h("label", { for: `cycle-${c}` }, radio, ` ${t[c]}`));
  }
  const inboxField = field("f-inboxes", t.inboxes, { type: "number", min: "0", max: String(MAX_ADDITIONAL_INBOXES), step: "1", inputmode: "numeric", value: String(inboxes) }, " ");
  inboxField.input.addEventListener("input", () => {
    inboxesOk = wholeIn(inboxField.input.value, 0, MAX_ADDITIONAL_INBOXES);
    setError(inboxField, inboxesOk ? undefined : t.inboxesRange);
    if (inboxesOk && Number(inboxField.input.value) !== inboxes) {
      inboxes = Number(inboxField.input.value);
      choiceChanged();
    }
  });
  const inboxHint = inboxField.wrap.querySelector(".hint")!;
  const subtotalOut = h("dd", { id: "price-subtotal" });
  const discountOut = h("dd", { id: "price-discount" });
  const discountLabel = h("dt", { id: "price-discount-label" }, t.discount);
  const totalOut = h("dd", { id: "price-total" });
  const discountRow = h("div", { class: "row" }, discountLabel, discountOut);
  const priceBox = h(
    "dl",
    { class: "price", id: "price", "aria-live": "polite" },
    h("div", { class: "row" }, h("dt", {}, t.subtotal), subtotalOut),
    discountRow,
    h("div", { class: "row total" }, h("dt", {}, t.total), totalOut),
  );

  // Coupon. `coupon` is applied only while the API has said it applies to the current choice.
  const couponField = field("f-coupon", t.coupon, { autocomplete: "off", maxlength: "40", value: query.get("coupon") ?? "" });
  const couponNote = h("p", { id: "coupon-status", class: "ok", role: "status" });
  const applyButton = h("button", { type: "button", class: "secondary", id: "coupon-apply" }, t.apply);
  couponField.wrap.insertBefore(applyButton, couponField.err);
  couponField.wrap.append(couponNote);
  couponField.input.setAttribute("aria-describedby", "f-coupon-err coupon-status");
  couponField.err.setAttribute("role", "alert");
  let coupon: AppliedCoupon | undefined;
  /** The code the visitor asked for and has not edited since: checked again when the choice changes. */
  let wanted: string | undefined;
  /** Bumped by every check, edit and choice: a reply that comes back after a newer one is ignored. */
  let couponSeq = 0;
  let couponWork: Promise<Verdict> = Promise.resolve("stale");
  let recheckTimer: ReturnType<typeof setTimeout> | undefined;
  /** API answers by (code, plan, cycle, inboxes): going back to an earlier choice asks nothing again. */
  const answers = new Map<string, Outcome>();
  const typedCode = () => couponField.input.value.trim().toUpperCase();

  const stopRecheck = () => {
    clearTimeout(recheckTimer);
    recheckTimer = undefined;
  };

  const checkCoupon = (code: string): Promise<Verdict> => (couponWork = askCoupon(code));

  async function askCoupon(code: string): Promise<Verdict> {
    stopRecheck();
    const seq = ++couponSeq;
    const q = { code, plan: plan.slug, billing_cycle: cycle, additional_inboxes: inboxes };
    const key = JSON.stringify(q);
    applyButton.disabled = true;
    const out = answers.get(key) ?? (await post("/coupon", q));
    if (seq !== couponSeq) return "stale";
    // The choice changed while the first check of this code was under way: ask for the new one.
    if (q.plan !== plan.slug || q.billing_cycle !== cycle || q.additional_inboxes !== inboxes) return checkCoupon(code);
    applyButton.disabled = false;
    coupon = undefined;
    wanted = undefined;
    couponNote.textContent = "";
    let verdict: Verdict = "failed";
    let error: string | undefined;
    if (out.kind === "ok") {
      answers.set(key, out);
      const b = out.body as CouponReply;
      if (b.valid && b.coupon) {
        coupon = { ...b.coupon, code };
        couponNote.textContent = fill(t.couponApplied, { code });
        verdict = "applied";
      } else {
        error = words({ field: "coupon", code: b.reason ?? "not_found", message: "" });
        verdict = "refused";
      }
      // Another plan or cycle may take it: keep asking while the code stays as it is.
      if (b.valid || b.reason === "not_applicable") wanted = code;
    } else error = outcomeWords(out);
    setError(couponField, error);
    update();
    return verdict;
  }

  /** Forget the applied coupon (the code was edited, emptied or refused by subscribe). */
  function dropCoupon(): void {
    stopRecheck();
    couponSeq += 1;
    coupon = undefined;
    wanted = undefined;
    applyButton.disabled = false;
    couponNote.textContent = "";
    setError(couponField, undefined);
    update();
  }

  /** Plan, cycle or inboxes changed: the price at once, the coupon asked again (after a pause, so typing an inbox count asks once). */
  function choiceChanged(): void {
    update();
    if (wanted === undefined) return;
    stopRecheck();
    couponSeq += 1;
    const code = wanted;
    recheckTimer = setTimeout(() => void checkCoupon(code), 300);
  }

  /** Waits for every coupon check under way (and runs a pending one now). */
  async function settleCoupon(): Promise<void> {
    if (recheckTimer !== undefined && wanted !== undefined) void checkCoupon(wanted);
    let work: Promise<Verdict>;
    do {
      work = couponWork;
      await work;
    } while (work !== couponWork);
  }

  const applyCoupon = (): void => {
    const code = typedCode();
    if (code) void checkCoupon(code);
    else dropCoupon();
  };
  applyButton.addEventListener("click", applyCoupon);
  couponField.input.addEventListener("keydown", (e) => {
    if ((e as KeyboardEvent).key === "Enter") {
      e.preventDefault();
      applyCoupon();
    }
  });
  couponField.input.addEventListener("input", () => {
    if (wanted === undefined || typedCode() !== wanted) dropCoupon();
  });

  function update(): void {
    for (const p of plans) {
      planLabels.get(p.slug)!.textContent = `${money(p.prices[cycle], p.currency)}${cycle === "monthly" ? t.perMonth : t.perYear}`;
    }
    inboxHint.textContent = fill(t.inboxesHint, { n: plan.included_inboxes });
    const price: Price = priceFor(plan, cycle, inboxes, coupon);
    const duration = coupon ? lasts(coupon) : "";
    subtotalOut.textContent = money(price.subtotal, price.currency);
    discountLabel.textContent = duration ? `${t.discount} (${duration})` : t.discount;
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
    // No maxlength: it counts UTF-16 units, the API characters; check() holds the 8 to 128 characters.
    password: field("f-password", t.password, { type: "password", autocomplete: "new-password", required: true, minlength: "8" }, t.passwordHint),
  };
  f.cnpj.input.addEventListener("input", () => {
    f.cnpj.input.value = maskCnpj(f.cnpj.input.value);
  });
  f.phone.input.addEventListener("blur", () => {
    const e164 = normalizeBrazilianPhone(f.phone.input.value);
    if (e164) f.phone.input.value = formatPhone(e164);
  });
  const prefillNote = h("p", { id: "prefill-status", class: "notice", role: "alert" });
  const prefillRetry = h("button", { type: "button", id: "prefill-retry", class: "secondary", hidden: true }, t.tryAgain);
  const submit = h("button", { type: "submit", id: "subscribe" }, t.subscribe);
  const notice = h("p", { id: "notice", class: "notice", role: "alert" });
  const form = h(
    "form",
    { id: "checkout", novalidate: true },
    h("section", { "aria-labelledby": "h-plan" }, h("h2", { id: "h-plan" }, t.yourPlan), planBox, cycleBox, inboxField.wrap, priceBox, couponField.wrap),
    h("section", { "aria-labelledby": "h-you" }, h("h2", { id: "h-you" }, t.you), prefillNote, prefillRetry, ...Object.values(f).map((x) => x.wrap)),
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
  /** Names for the errors of fields the form has no input for. */
  const fieldNames: Record<string, string> = { plan: t.plan, billing_cycle: t.cycle };

  function showOutcome(out: Outcome, where: HTMLElement = notice, fields: Record<string, Field> = fieldFor): void {
    if (out.kind !== "invalid") {
      where.textContent = outcomeWords(out);
      return;
    }
    let first: Field | undefined;
    const loose: string[] = [];
    for (const e of out.errors) {
      const target = fields[e.field];
      if (target) {
        setError(target, words(e));
        first ??= target;
      } else loose.push(e.field === "base" ? words(e) : `${fieldNames[e.field] ?? e.field}: ${words(e)}`);
    }
    where.textContent = [...(first ? [t.fixFields] : []), ...loose].join(" ") || t.invalid;
    first?.input.focus();
  }

  function check(): Field | undefined {
    const v = (x: Field) => x.input.value.trim();
    const problems: [Field, string | undefined][] = [
      [inboxField, inboxesOk ? undefined : t.inboxesRange],
      [f.name, v(f.name) ? undefined : t.required],
      [f.email, !v(f.email) ? t.required : validEmail(v(f.email)) ? undefined : t.invalidEmail],
      [f.phone, !v(f.phone) ? t.required : normalizeBrazilianPhone(v(f.phone)) ? undefined : t.invalidPhone],
      [f.cnpj, !v(f.cnpj) ? t.required : normalizeCnpj(v(f.cnpj)) ? undefined : t.invalidCnpj],
      [f.account, v(f.account) ? undefined : t.required],
      [f.password, passwordProblem(f.password.input.value)],
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
    busy = true;
    submit.disabled = true;
    submit.textContent = t.sending;
    void send().finally(() => {
      busy = false;
      submit.disabled = false;
      submit.textContent = t.subscribe;
    });
  });

  /** Subscribes with the coupon the API has said applies; a code typed but not applied is checked first. */
  async function send(): Promise<void> {
    await settleCoupon();
    const typed = typedCode();
    if (typed && coupon?.code !== typed) {
      const verdict = await checkCoupon(typed);
      if (verdict === "stale") return;
      if (verdict !== "applied") {
        notice.textContent = t.checkCoupon;
        couponField.input.focus();
        return;
      }
    }
    const v = (x: Field) => x.input.value.trim();
    const customer = { name: v(f.name), email: v(f.email), phone: normalizeBrazilianPhone(v(f.phone))!, cnpj: normalizeCnpj(v(f.cnpj))! };
    const body = {
      plan: plan.slug,
      billing_cycle: cycle,
      additional_inboxes: inboxes,
      ...(coupon ? { coupon: coupon.code } : {}),
      account_name: v(f.account),
      user: { name: customer.name, email: customer.email, password: f.password.input.value },
      customer,
      ...(liveToken ? { token: liveToken } : {}),
      // The account speaks the page's language (Chatwoot's locale codes).
      locale: lang === "pt-BR" ? "pt_BR" : "en",
    };
    await subscribe(body);
  }

  async function subscribe(body: unknown): Promise<void> {
    let out = await post("/subscribe", body, { "idempotency-key": idempotencyKey(false) });
    // The key belongs to another submission (the visitor changed something): a new one.
    if (out.kind === "conflict" && out.code === "idempotency_mismatch") out = await post("/subscribe", body, { "idempotency-key": idempotencyKey(true) });
    if (out.kind === "invalid") {
      dropIdempotencyKey();
      // The API refused the coupon: the price shown no longer counts it.
      if (out.errors.some((e) => e.field === "coupon")) dropCoupon();
    }
    if (out.kind === "ok") return success(out.body as SubscribeReply);
    showOutcome(out);
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
  const QUOTE_MAX = 100_000;
  const q = {
    name: field("q-name", t.name, { autocomplete: "name", required: true, maxlength: "255" }),
    email: field("q-email", t.email, { type: "email", autocomplete: "email", required: true, maxlength: "254" }),
    phone: field("q-phone", `${t.phone} ${t.optional}`, { type: "tel", autocomplete: "tel", maxlength: "40" }),
    company: field("q-company", `${t.company} ${t.optional}`, { autocomplete: "organization", maxlength: "255" }),
    inboxes: field("q-inboxes", `${t.quoteInboxes} ${t.optional}`, { type: "number", min: "1", max: String(QUOTE_MAX), step: "1", inputmode: "numeric" }),
    agents: field("q-agents", `${t.agents} ${t.optional}`, { type: "number", min: "1", max: String(QUOTE_MAX), step: "1", inputmode: "numeric" }),
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
    const count = (x: Field) => (!v(x) || wholeIn(v(x), 1, QUOTE_MAX) ? undefined : fill(t.wholeNumber, { min: 1, max: QUOTE_MAX.toLocaleString(lang) }));
    const checks: [Field, string | undefined][] = [
      [q.name, v(q.name) ? undefined : t.required],
      [q.email, !v(q.email) ? t.required : validEmail(v(q.email)) ? undefined : t.invalidEmail],
      [q.phone, !v(q.phone) || normalizeBrazilianPhone(v(q.phone)) ? undefined : t.invalidPhone],
      [q.inboxes, count(q.inboxes)],
      [q.agents, count(q.agents)],
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
    quoteNotice.textContent = "";
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
    void post("/quote", body).then((out) => {
      quoteButton.disabled = false;
      if (out.kind === "ok") {
        quoteForm.replaceWith(h("p", { id: "quote-sent", role: "status", class: "ok" }, t.quoteSent));
        return;
      }
      showOutcome(out, quoteNotice, quoteFields);
    });
  });

  root.append(form, h("details", { id: "custom" }, h("summary", {}, t.quoteTitle), quoteForm));
  update();
  if (couponField.input.value) applyCoupon();

  // Prefill: an unknown or expired token gives an empty form and no word; a 429, a 5xx or a
  // network failure says so and tries again (by itself after a 429's wait, else on request),
  // filling only the fields still empty.
  let exchanging = false;
  const takePrefill = (out: Outcome): void => {
    exchanging = false;
    prefillNote.textContent = "";
    const retryHadFocus = document.activeElement === prefillRetry;
    prefillRetry.hidden = true;
    if (out.kind === "ok") {
      const c = (out.body as { customer?: Customer }).customer;
      if (!c) return;
      const set = (x: Field, value: string | null) => {
        if (value && !x.input.value) x.input.value = value;
      };
      set(f.name, c.name);
      set(f.email, c.email);
      set(f.phone, c.phone ? formatPhone(c.phone) : null);
      set(f.cnpj, c.cnpj ? formatCnpj(c.cnpj) : null);
      document.body.dataset["prefilled"] = "true";
      if (retryHadFocus) f.name.input.focus();
    } else if (out.kind === "rate") {
      prefillNote.textContent = fill(t.prefillRate, { wait: wait(out.seconds) });
      setTimeout(retryPrefill, out.seconds * 1000);
    } else if (out.kind === "server" || out.kind === "network") {
      prefillNote.textContent = out.kind === "network" ? t.prefillNetwork : t.prefillServer;
      prefillRetry.hidden = false;
      if (retryHadFocus) prefillRetry.focus();
    } else liveToken = undefined;
  };
  function retryPrefill(): void {
    if (exchanging || !form.isConnected) return;
    exchanging = true;
    void exchange().then(takePrefill);
  }
  prefillRetry.addEventListener("click", retryPrefill);
  if (prefilled) {
    exchanging = true;
    void prefilled.then(takePrefill);
  }
}

function start(): void {
  document.documentElement.lang = lang;
  document.title = t.title;
  const root = document.getElementById("app")!;
  root.append(h("h1", {}, t.title), h("p", { class: "lead" }, t.lead));
  // Plans that do not load leave a message and a button to load them again.
  const error = h("p", { id: "plans-error", class: "notice", role: "alert" });
  const retry = h("button", { type: "button", id: "plans-retry", class: "secondary" }, t.tryAgain);
  const failure = h("div", { id: "plans-failure" }, error, retry);
  let loading = false;
  const show = (out: Outcome): void => {
    loading = false;
    const plans = out.kind === "ok" ? (out.body as { plans?: Plan[] }).plans : undefined;
    if (plans && plans.length > 0) {
      const hadFocus = document.activeElement === retry;
      failure.remove();
      render(plans);
      document.body.dataset["ready"] = "true";
      if (hadFocus) document.querySelector<HTMLInputElement>("input[name=plan]:checked")?.focus();
      return;
    }
    const detail = out.kind === "ok" ? "" : out.kind === "rate" ? fill(t.plansRate, { wait: wait(out.seconds) }) : out.kind === "network" ? t.plansNetwork : t.plansServer;
    error.textContent = `${t.noPlans} ${detail}`.trim();
    if (!failure.isConnected) root.append(failure);
  };
  retry.addEventListener("click", () => {
    if (loading) return;
    loading = true;
    void loadPlans().then(show);
  });
  void plansLoaded.then(show);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
else start();
