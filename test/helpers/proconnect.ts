/**
 * A real OpenID Connect provider for the merchant space's tests, configured like ProConnect
 * (src/official/proconnect.ts says what ProConnect does): oidc-provider, a certified OpenID
 * provider library, on a loopback port; authorization code with PKCE required; client
 * authentication client_secret_post; ID token signed RS256; userinfo answered as a signed JWT;
 * the claims sub, email, given_name, usual_name, siret, siren, uid, idp_id; RP-initiated logout.
 *
 * Like ProConnect, its authorization endpoint refuses any parameter ProConnect does not know
 * (400), and it asks the `claims` parameter to request `acr` as essential in the ID token (400
 * otherwise); every authorization request is kept (`authorizeRequests`) for the tests to read.
 * Each account's ID token carries the `acr` and `amr` it is given (eidas1 and ["pwd"] unless said:
 * `acr: null` sends none), whatever the request asked, as a provider that does not honour the
 * request would: the relying party's own check is what the tests exercise.
 *
 * `signInThroughProConnect` runs the whole flow over HTTP as a browser would, with cookie jars:
 * /pro/connexion, the provider's login and consent pages (its development interactions: a login
 * form that takes an account id, a consent form), the callback, /pro. The sign-in cookie, the
 * session cookie and the CSRF token come back for the test to go on.
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { interactionPolicy } from "oidc-provider";
import { startTestServer, TEST_BASE_URL, type TestServer } from "./test-server.ts";

export const TEST_CLIENT_ID = "abeille-test";
export const TEST_CLIENT_SECRET = "abeille-test-secret-0123456789abcdef";

export interface ProConnectAccount {
  siret?: string | null;
  siren?: string | null;
  email?: string;
  givenName?: string;
  usualName?: string;
  uid?: string;
  /** The ID token's acr (default eidas1); null sends none. */
  acr?: string | null;
  /** The ID token's amr (default ["pwd"]). */
  amr?: string[];
  /** The userinfo's idp_id (default the test provider's). */
  idpId?: string;
}

/** ProConnect's acr values (data/proconnect-assurance.json). */
const ACR_VALUES = [
  "eidas0",
  "eidas0-mfa",
  "eidas1",
  "eidas1-mfa",
  "eidas2",
  "eidas3",
  "https://proconnect.gouv.fr/assurance/certification-dirigeant",
];

/** The idp_id the test provider names when an account says none. */
export const TEST_IDP_ID = "7f1c2b9e-idp-test";

/** The parameters ProConnect's authorization endpoint takes (any other: Y000400 Bad Request). */
export const PROCONNECT_AUTHORIZE_PARAMETERS = [
  "client_id",
  "acr_values",
  "claims",
  "response_type",
  "response_mode",
  "nonce",
  "login_hint",
  "state",
  "redirect_uri",
  "scope",
  "prompt",
  "idp_hint",
  "code_challenge",
  "code_challenge_method",
];

export interface TestProConnect {
  issuer: string;
  /** The env the server needs to use this provider. */
  env: Record<string, string>;
  /** Registers a person the provider will sign in; answers its `sub`. */
  addAccount(account: ProConnectAccount): string;
  /** Changes what the provider says of an account from its next sign-in on (another SIRET, another acr). */
  updateAccount(sub: string, changes: ProConnectAccount): void;
  /** The query of every authorization request the provider received, oldest first. */
  authorizeRequests: URLSearchParams[];
  close(): Promise<void>;
}

export async function startProConnect(options: { baseUrl?: string } = {}): Promise<TestProConnect> {
  // oidc-provider's notices about its default lifetimes say nothing a test needs.
  const ttl = { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 };
  const baseUrl = options.baseUrl ?? TEST_BASE_URL;
  const accounts = new Map<string, ProConnectAccount>();
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), alg: "RS256", use: "sig", kid: "test-rs256" };
  const server = http.createServer();
  const authorizeRequests: URLSearchParams[] = [];
  // The account's own acr is issued whatever was asked (the relying party checks it).
  const policy = interactionPolicy.base();
  policy.get("login")?.checks.remove("essential_acrs");
  policy.get("login")?.checks.remove("essential_acr");
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: [`${baseUrl}/pro/connexion/retour`],
        post_logout_redirect_uris: [`${baseUrl}/pro`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
        id_token_signed_response_alg: "RS256",
        userinfo_signed_response_alg: "RS256",
      },
    ],
    scopes: ["openid", "email", "given_name", "usual_name", "siret", "siren", "uid", "idp_id"],
    claims: {
      openid: ["sub"],
      email: ["email"],
      given_name: ["given_name"],
      usual_name: ["usual_name"],
      siret: ["siret"],
      siren: ["siren"],
      uid: ["uid"],
      idp_id: ["idp_id"],
      // Standalone claims the ID token may carry when asked (the claims parameter).
      acr: null,
      amr: null,
    },
    interactions: { policy },
    // Without acr values the provider sends no acr at all: ProConnect's, and one no document names.
    acrValues: [...ACR_VALUES, "eidas9"],
    features: {
      claimsParameter: { enabled: true },
      devInteractions: { enabled: true },
      jwtUserinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    pkce: { required: () => true },
    ttl,
    jwks: { keys: [jwk] },
    cookies: { keys: ["test-cookie-key-0123456789"] },
    findAccount: (_context, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email ?? `${id.slice(0, 8)}@exemple.fr`,
          given_name: account.givenName ?? "Camille",
          usual_name: account.usualName ?? "Martin",
          ...(account.siret ? { siret: account.siret } : {}),
          ...(account.siren ? { siren: account.siren } : {}),
          uid: account.uid ?? id,
          idp_id: account.idpId ?? TEST_IDP_ID,
        }),
      };
    },
  });
  const callback = provider.callback();
  server.on("request", (request, response) => {
    const url = new URL(request.url ?? "/", issuer);
    if (request.method === "GET" && url.pathname === "/auth") {
      authorizeRequests.push(url.searchParams);
      const problem = authorizeProblem(url.searchParams);
      if (problem) {
        response.writeHead(400, { "content-type": "text/plain" }).end(`Y000400 Bad Request Exception: ${problem}`);
        return;
      }
    }
    if (request.method === "POST" && /^\/interaction\/[^/]+$/.test(url.pathname)) {
      void submitInteraction(provider, accounts, request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
      return;
    }
    callback(request, response);
  });
  return {
    issuer,
    env: {
      PROCONNECT_ISSUER: issuer,
      PROCONNECT_CLIENT_ID: TEST_CLIENT_ID,
      PROCONNECT_CLIENT_SECRET: TEST_CLIENT_SECRET,
    },
    addAccount(account) {
      const sub = randomUUID();
      accounts.set(sub, account);
      return sub;
    },
    updateAccount(sub, changes) {
      accounts.set(sub, { ...(accounts.get(sub) ?? {}), ...changes });
    },
    authorizeRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What ProConnect would refuse in an authorization request: an unknown parameter, or no essential acr asked. */
function authorizeProblem(query: URLSearchParams): string | null {
  const unknown = [...query.keys()].filter((name) => !PROCONNECT_AUTHORIZE_PARAMETERS.includes(name));
  if (unknown.length > 0) return `unknown parameter(s) ${unknown.join(", ")}`;
  try {
    const claims = JSON.parse(query.get("claims") ?? "null") as { id_token?: { acr?: { essential?: unknown } } };
    if (claims?.id_token?.acr?.essential !== true) return "the claims parameter does not ask acr as essential";
  } catch {
    return "the claims parameter is not JSON";
  }
  return null;
}

/**
 * The login and consent forms of oidc-provider's development interactions, answered here so that
 * the login carries the account's acr and amr (the development login sets none).
 */
async function submitInteraction(
  provider: Provider,
  accounts: Map<string, ProConnectAccount>,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  const details = await provider.interactionDetails(request, response);
  if (form.get("prompt") === "login") {
    const accountId = form.get("login") ?? "";
    const account = accounts.get(accountId) ?? {};
    const acr = account.acr === undefined ? "eidas1" : account.acr;
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId, ...(acr === null ? {} : { acr }), amr: account.amr ?? ["pwd"] } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const grant = new provider.Grant({ accountId: details.session?.accountId, clientId: details.params.client_id });
  const missingScope = details.prompt.details.missingOIDCScope;
  if (Array.isArray(missingScope)) grant.addOIDCScope(missingScope.join(" "));
  const missingClaims = details.prompt.details.missingOIDCClaims;
  if (Array.isArray(missingClaims)) grant.addOIDCClaims(missingClaims as string[]);
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId: await grant.save() } },
    { mergeWithLastSubmission: true },
  );
}

/** Cookies per host, as a browser keeps them (paths and expiry are not needed by these flows). */
export class CookieJar {
  readonly #cookies = new Map<string, Map<string, string>>();

  header(url: string): string {
    const cookies = this.#cookies.get(new URL(url).host);
    return cookies ? [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") : "";
  }

  take(url: string, response: Response): void {
    const host = new URL(url).host;
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const cookies = this.#cookies.get(host) ?? new Map<string, string>();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || value === "";
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
      this.#cookies.set(host, cookies);
    }
  }

  get(url: string, name: string): string | undefined {
    return this.#cookies.get(new URL(url).host)?.get(name);
  }
}

/** One browser: its cookie jar, and where the server really listens (BASE_URL is not resolvable). */
export interface TestBrowser {
  jar: CookieJar;
  serverUrl: string;
  /** The server's BASE_URL: the provider redirects there, the browser reaches it at serverUrl. */
  baseUrl: string;
  /** The interaction prompts the provider showed during the last flow (login, consent). */
  prompts: string[];
}

export function newBrowser(serverUrl: string, baseUrl: string = TEST_BASE_URL): TestBrowser {
  return { jar: new CookieJar(), serverUrl, baseUrl, prompts: [] };
}

/** BASE_URL's addresses are served by the test server: a redirect there goes to it. */
export function reachable(browser: TestBrowser, url: string): string {
  return url.startsWith(browser.baseUrl) ? browser.serverUrl + url.slice(browser.baseUrl.length) : url;
}

/** One request as the browser makes it: its cookies sent and kept, redirects not followed. */
export async function browse(
  browser: TestBrowser,
  url: string,
  init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const target = reachable(browser, url);
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const cookie = browser.jar.header(target);
  if (cookie) headers.cookie = cookie;
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(target, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
    redirect: "manual",
  });
  browser.jar.take(target, response);
  return response;
}

/** A page's text with the character references `html` writes decoded (for assertions on French text). */
export const decodeHtml = (text: string) =>
  text
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");

/** The action and hidden fields of the first form in a page. */
function firstForm(page: string, base: string): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(page);
  if (!form?.[1]) throw new Error(`no form in the page:\n${page.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? "").matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name) fields[name] = decodeHtml(value ?? "");
  }
  return { action: new URL(decodeHtml(form[1]), base).href, fields };
}

/**
 * Follows redirects from `url` as a browser does, answering the provider's interaction pages
 * (login with `accountId`, consent), until an answer that is not a redirect or a provider page:
 * that answer and the URL it came from.
 */
export async function follow(
  browser: TestBrowser,
  url: string,
  provider: TestProConnect,
  accountId: string | null,
  init: { method?: string; form?: Record<string, string>; stopAt?: (url: string) => boolean } = {},
): Promise<{ response: Response; url: string }> {
  let current = url;
  let response = await browse(browser, current, init);
  for (let step = 0; step < 20; step++) {
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      current = new URL(location, reachable(browser, current)).href;
      if (init.stopAt?.(current)) return { response, url: current };
      response = await browse(browser, current);
      continue;
    }
    if (!current.startsWith(provider.issuer) || response.status !== 200) return { response, url: current };
    const page = await response.text();
    if (page.includes('name="prompt" value="login"')) {
      if (accountId === null) throw new Error("the provider asks to log in and no account was given");
      browser.prompts.push("login");
      const { action } = firstForm(page, current);
      response = await browse(browser, action, { form: { prompt: "login", login: accountId, password: "test" } });
      current = action;
    } else if (page.includes('name="prompt" value="consent"')) {
      browser.prompts.push("consent");
      const { action } = firstForm(page, current);
      response = await browse(browser, action, { form: { prompt: "consent" } });
      current = action;
    } else if (page.includes("op.logoutForm")) {
      browser.prompts.push("logout");
      const { action, fields } = firstForm(page, current);
      response = await browse(browser, action, { form: { ...fields, logout: "yes" } });
      current = action;
    } else {
      return { response: new Response(page, { status: response.status, headers: response.headers }), url: current };
    }
  }
  throw new Error(`too many redirects from ${url}`);
}

/** The CSRF token in a page of the space (every form carries it). */
export function csrfTokenIn(page: string): string {
  const token = /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(page)?.[1];
  if (!token) throw new Error(`no CSRF token in the page:\n${page.slice(0, 500)}`);
  return token;
}

export interface SignedIn {
  sub: string;
  browser: TestBrowser;
  /** `name=value` of the session cookie, as a request header. */
  cookie: string;
  csrfToken: string;
  /** A request to the server in this browser (cookies sent and kept, redirects not followed). */
  fetch(
    path: string,
    init?: { method?: string; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<Response>;
}

/**
 * Signs a person in through the provider, over HTTP, as a browser would: /pro/connexion, the
 * provider's login and consent, the callback, /pro. `browser` continues an earlier browser (its
 * cookies: the provider's session, the space's session); `sub` signs in an account already added.
 */
export async function signInThroughProConnect(
  serverUrl: string,
  provider: TestProConnect,
  account: ProConnectAccount & { sub?: string },
  options: { browser?: TestBrowser; baseUrl?: string } = {},
): Promise<SignedIn> {
  const browser = options.browser ?? newBrowser(serverUrl, options.baseUrl);
  browser.prompts = [];
  const sub = account.sub ?? provider.addAccount(account);
  const { response, url } = await follow(browser, `${serverUrl}/pro/connexion`, provider, sub);
  const page = await response.text();
  if (response.status !== 200 || !url.endsWith("/pro")) {
    throw new Error(`sign-in ended at ${url} with ${response.status}:\n${page.slice(0, 800)}`);
  }
  const name = browser.baseUrl.startsWith("https://") ? "__Host-abeille_pro" : "abeille_pro";
  const value = browser.jar.get(serverUrl, name);
  if (!value) throw new Error("no session cookie after the sign-in");
  return {
    sub,
    browser,
    cookie: `${name}=${value}`,
    csrfToken: csrfTokenIn(page),
    fetch: (path, init) => browse(browser, `${serverUrl}${path}`, init),
  };
}

/** The built server over a fresh demo registry, with PROCONNECT_* pointing at a test provider started first. */
export async function startServerWithProConnect(
  options: { count?: number; env?: Record<string, string>; baseUrl?: string; port?: number } = {},
): Promise<{ server: TestServer; provider: TestProConnect; close(): Promise<void> }> {
  const provider = await startProConnect(options.baseUrl ? { baseUrl: options.baseUrl } : {});
  const server = await startTestServer({
    ...(options.count ? { count: options.count } : {}),
    ...(options.port ? { port: options.port } : {}),
    env: { ...provider.env, ...(options.baseUrl ? { BASE_URL: options.baseUrl } : {}), ...(options.env ?? {}) },
  });
  return {
    server,
    provider,
    async close() {
      await server.close();
      await provider.close();
    },
  };
}
