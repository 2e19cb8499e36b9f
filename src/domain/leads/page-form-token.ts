import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import type { LeadChannel } from "./lead-store.ts";

/**
 * The page form token: what tells a lead typed in the form of a merchant's page from one a program
 * sent to the API. The form of `/m/{ab_id}/` carries it (a hidden field, sent by the page's script
 * in the X-Lead-Form-Token header); a lead that presents the token of its own merchant's page is
 * `page`, any other is `api`. Never the `Origin` header: any program can write one.
 *
 * Shape: base64url(HMAC-SHA256(secret, "abeille-page-form/v1:" + ab_id)), 43 characters, keyed
 * by DATA_DIR/secrets/page-form.key (a key of its own, not the tracking tokens'). Why this shape:
 * - a program cannot make one up: it has to read it from the merchant's page, which only a
 *   program deliberately posing as the form does (as one driving a browser could anyway);
 * - bound to one merchant: the token of one page does not make a lead to another merchant `page`;
 * - the same for every rendering of a page, so the page keeps its strong ETag and is cached as
 *   before; rotating the secret changes every page's token.
 */
export interface PageFormTokens {
  /** The token the form of this merchant's page carries. */
  issue(abId: string): string;
  /** Whether `token` is the one the form of this merchant's page carries (constant-time). */
  verify(token: string, abId: string): boolean;
}

const CONTEXT = "abeille-page-form/v1:";
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function createPageFormTokens(secret: () => Buffer): PageFormTokens {
  let key: KeyObject | undefined;
  const tokenOf = (abId: string) => {
    key ??= createSecretKey(secret());
    return createHmac("sha256", key)
      .update(CONTEXT + abId, "utf8")
      .digest("base64url");
  };
  return {
    issue: tokenOf,
    verify(token, abId) {
      if (!TOKEN.test(token)) return false;
      const expected = Buffer.from(tokenOf(abId), "ascii");
      return timingSafeEqual(Buffer.from(token, "ascii"), expected);
    },
  };
}

/**
 * The channel of a lead: `page` when it presents the form token of its merchant's page, `api`
 * otherwise. A token that does not match (another merchant's, an old secret's, made up) is not an
 * error: the lead goes through as any program's, and the merchant is told so.
 */
export function leadChannelOf(tokens: PageFormTokens, formToken: string | null | undefined, abId: string): LeadChannel {
  return formToken && tokens.verify(formToken.trim(), abId) ? "page" : "api";
}
