/**
 * The merchant space behind an https BASE_URL: the session cookie is Secure and carries the
 * __Host- prefix (a browser then refuses it from a subdomain or over http), and the pages let
 * the sign-out form end at the provider (CSP form-action).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browse, follow, newBrowser, startServerWithProConnect, type TestProConnect } from "../helpers/proconnect.ts";
import type { TestServer } from "../helpers/test-server.ts";

const HTTPS_BASE_URL = "https://abeille.test";
let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({ count: 40, baseUrl: HTTPS_BASE_URL }));
});
afterAll(async () => {
  await close?.();
});

describe("on an https BASE_URL", () => {
  it("names the cookies __Host- and marks them Secure, HttpOnly, SameSite=Lax, Path=/", async () => {
    const browser = newBrowser(server.url, HTTPS_BASE_URL);
    const start = await browse(browser, `${server.url}/pro/connexion`);
    expect(start.status).toBe(303);
    expect(start.headers.get("set-cookie")).toMatch(
      /^__Host-abeille_pro_connexion=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
    const sub = provider.addAccount({ siret: null, siren: null });
    const { url } = await follow(browser, start.headers.get("location") ?? "", provider, sub, {
      stopAt: (next) => next.includes("/pro/connexion/retour"),
    });
    expect(url.startsWith(`${HTTPS_BASE_URL}/pro/connexion/retour?`)).toBe(true);
    const callback = await browse(browser, url);
    expect(callback.status).toBe(303);
    expect(callback.headers.get("set-cookie")).toMatch(
      /^__Host-abeille_pro=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/,
    );
    const home = await browse(browser, `${server.url}/pro`);
    expect(await home.text()).toContain("Se déconnecter");
    expect(home.headers.get("content-security-policy")).toContain(`form-action 'self' ${provider.issuer}`);
  });

  it("does not take the cookie without its prefix", async () => {
    const browser = newBrowser(server.url, HTTPS_BASE_URL);
    const sub = provider.addAccount({});
    const start = await browse(browser, `${server.url}/pro/connexion`);
    const { url } = await follow(browser, start.headers.get("location") ?? "", provider, sub, {
      stopAt: (next) => next.includes("/pro/connexion/retour"),
    });
    const token = /__Host-abeille_pro=([^;]+)/.exec((await browse(browser, url)).headers.get("set-cookie") ?? "")?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const unprefixed = await fetch(`${server.url}/pro`, { headers: { cookie: `abeille_pro=${token}` } });
    expect(await unprefixed.text()).not.toContain("Se déconnecter");
  });
});
