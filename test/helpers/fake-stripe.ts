/**
 * A local HTTP server speaking the few Stripe endpoints the order rail uses, so that tests run
 * the official `stripe` client for real (STRIPE_API_BASE points it here):
 *   POST /v1/checkout/sessions      form-encoded, with Stripe-Account and Idempotency-Key
 *   GET  /v1/checkout/sessions/{id}
 * It checks the secret key, the connected-account header and the parameters the way Stripe
 * does for these calls, records every request, and can be told to refuse an account.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export const FAKE_STRIPE_SECRET_KEY = "sk_test_abeille_fake_0123456789";

export interface RecordedStripeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw form-encoded body. */
  raw: string;
  /** The form body decoded into nested objects and arrays (`line_items[0][quantity]` -> params.line_items[0].quantity). */
  params: Record<string, unknown>;
}

export interface FakeStripe {
  url: string;
  requests: RecordedStripeRequest[];
  sessions: Map<string, Record<string, unknown>>;
  /** Connected accounts that answer 400 account_invalid. */
  refuseAccounts: Set<string>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

export async function startFakeStripe(options: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? FAKE_STRIPE_SECRET_KEY;
  const requests: RecordedStripeRequest[] = [];
  const sessions = new Map<string, Json>();
  const refuseAccounts = new Set<string>();
  const idempotent = new Map<string, { raw: string; status: number; body: Json }>();

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const path = (request.url ?? "/").split("?")[0] ?? "/";
      const recorded: RecordedStripeRequest = {
        method: request.method ?? "GET",
        path,
        headers: request.headers,
        raw,
        params: decodeForm(raw),
      };
      requests.push(recorded);
      const send = (status: number, body: Json) => {
        response.writeHead(status, { "content-type": "application/json", "request-id": `req_${token(14)}` });
        response.end(JSON.stringify(body));
      };
      const error = (status: number, type: string, message: string, code?: string, param?: string) =>
        send(status, { error: { type, message, ...(code ? { code } : {}), ...(param ? { param } : {}) } });

      if (request.headers.authorization !== `Bearer ${secretKey}`) {
        return error(401, "invalid_request_error", "Invalid API Key provided");
      }
      const account = header(request.headers["stripe-account"]);
      if (recorded.method === "POST" && path === "/v1/checkout/sessions") {
        const key = header(request.headers["idempotency-key"]);
        const scopedKey = key ? `${account}:${key}` : null;
        const previous = scopedKey ? idempotent.get(scopedKey) : undefined;
        if (previous) {
          if (previous.raw !== raw) {
            return error(
              400,
              "idempotency_error",
              "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            );
          }
          return send(previous.status, previous.body);
        }
        const [status, body] = createSession(recorded.params, account, refuseAccounts);
        if (status === 200) sessions.set(String(body.id), body);
        if (scopedKey) idempotent.set(scopedKey, { raw, status, body });
        return send(status, body);
      }
      const match = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)$/.exec(path);
      if (recorded.method === "GET" && match?.[1]) {
        const session = sessions.get(match[1]);
        if (!session || session.account !== account) {
          return error(
            404,
            "invalid_request_error",
            `No such checkout.session: '${match[1]}'`,
            "resource_missing",
            "id",
          );
        }
        return send(200, session);
      }
      return error(404, "invalid_request_error", `Unrecognized request URL (${recorded.method}: ${path}).`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sessions,
    refuseAccounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function createSession(params: Json, account: string | null, refuse: Set<string>): [number, Json] {
  const invalid = (message: string, param?: string): [number, Json] => [
    400,
    { error: { type: "invalid_request_error", message, ...(param ? { param } : {}) } },
  ];
  if (!account || !/^acct_[A-Za-z0-9]+$/.test(account)) {
    return invalid("This test server expects a direct charge: send Stripe-Account: acct_...");
  }
  if (refuse.has(account)) {
    return [
      400,
      {
        error: {
          type: "invalid_request_error",
          code: "account_invalid",
          message: "The provided key does not have access to account (or that account does not exist).",
        },
      },
    ];
  }
  if (params.mode !== "payment") return invalid("mode must be payment here", "mode");
  if (typeof params.success_url !== "string") return invalid("Missing required param: success_url.", "success_url");
  const lineItems = Array.isArray(params.line_items) ? (params.line_items as Json[]) : [];
  if (lineItems.length === 0) return invalid("Missing required param: line_items.", "line_items");
  let amount = 0;
  let currency: string | null = null;
  for (const [index, item] of lineItems.entries()) {
    const priceData = (item.price_data ?? {}) as Json;
    const quantity = Number(item.quantity);
    const unitAmount = Number(priceData.unit_amount);
    if (!Number.isInteger(quantity) || quantity < 1)
      return invalid("Invalid integer", `line_items[${index}][quantity]`);
    if (!Number.isInteger(unitAmount) || unitAmount < 0) {
      return invalid("Invalid integer", `line_items[${index}][price_data][unit_amount]`);
    }
    if (typeof priceData.currency !== "string")
      return invalid("Missing currency", `line_items[${index}][price_data][currency]`);
    if (currency && currency !== priceData.currency)
      return invalid("All line items must share one currency", "line_items");
    currency = priceData.currency;
    const productData = (priceData.product_data ?? {}) as Json;
    if (typeof productData.name !== "string" || productData.name === "") {
      return invalid("Missing required param: name.", `line_items[${index}][price_data][product_data][name]`);
    }
    amount += quantity * unitAmount;
  }
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = params.expires_at === undefined ? now + 86400 : Number(params.expires_at);
  if (!Number.isInteger(expiresAt) || expiresAt < now + 1800 - 60 || expiresAt > now + 86400) {
    return invalid("The `expires_at` timestamp must be between 30 minutes and 24 hours from now.", "expires_at");
  }
  const id = `cs_test_${token(58)}`;
  return [
    200,
    {
      id,
      object: "checkout.session",
      account,
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: params.cancel_url ?? null,
      client_reference_id: params.client_reference_id ?? null,
      client_secret: null,
      created: now,
      currency,
      customer_email: params.customer_email ?? null,
      expires_at: expiresAt,
      livemode: false,
      metadata: params.metadata ?? {},
      mode: "payment",
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      success_url: params.success_url,
      ui_mode: "hosted",
      url: `https://checkout.stripe.test/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
    },
  ];
}

function header(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function token(length: number): string {
  return randomBytes(length).toString("base64url").replace(/[-_]/g, "x").slice(0, length);
}

/** Decodes Stripe's form encoding (`a[b][0][c]=v`) into nested objects; numeric keys make arrays. */
export function decodeForm(raw: string): Json {
  const root: Json = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const path = name.split(/\[|\]\[|\]/).filter((part) => part !== "");
    let node: Json | unknown[] = root;
    path.forEach((part, index) => {
      const last = index === path.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(path[index + 1] ?? "");
      container[part] ??= nextIsIndex ? [] : {};
      node = container[part] as Json | unknown[];
    });
  }
  return root;
}
