/**
 * A real OpenID Connect provider for the merchant space's tests, configured like ProConnect
 * (src/official/proconnect.ts says what ProConnect does): oidc-provider, a certified OpenID
 * provider library, on a loopback port; authorization code with PKCE required; client
 * authentication client_secret_post; ID token signed RS256; userinfo answered as a signed JWT;
 * the claims sub, email, given_name, usual_name, siret, siren, uid; RP-initiated logout.
 *
 * `signInThroughProConnect` runs the whole flow over HTTP as a browser would, with cookie jars:
 * /pro/connexion, the provider's login and consent pages (its development interactions: a login
 * form that takes an account id, a consent form), the callback, /pro. The sign-in cookie, the
 * session cookie and the CSRF token come back for the test to go on.
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
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
}

export interface TestProConnect {
  issuer: string;
  /** The env the server needs to use this provider. */
  env: Record<string, string>;
  /** Registers a person the provider will sign in; answers its `sub`. */
  addAccount(account: ProConnectAccount): string;
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
    scopes: ["openid", "email", "given_name", "usual_name", "siret", "siren", "uid"],
    claims: {
      openid: ["sub"],
      email: ["email"],
      given_name: ["given_name"],
      usual_name: ["usual_name"],
      siret: ["siret"],
      siren: ["siren"],
      uid: ["uid"],
    },
    features: {
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
        }),
      };
    },
  });
  server.on("request", provider.callback());
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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
  options: { count?: number; env?: Record<string, string>; baseUrl?: string } = {},
): Promise<{ server: TestServer; provider: TestProConnect; close(): Promise<void> }> {
  const provider = await startProConnect(options.baseUrl ? { baseUrl: options.baseUrl } : {});
  const server = await startTestServer({
    ...(options.count ? { count: options.count } : {}),
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
