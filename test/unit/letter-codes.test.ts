/**
 * The postal letters' codes (src/domain/merchant-space/letter-code.ts, letters.ts) and their store
 * (src/store/letter-repository.ts): codes typed back from paper, only keyed hashes stored, a batch
 * only for listed establishments, a new letter superseding the older one, expiry, and a few wrong
 * tries locking a letter (its right code refused afterwards); the PDF, one page per letter.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLetterCodeKeys,
  formatLetterCode,
  newLetterCode,
  normalizeLetterCode,
} from "../../src/domain/merchant-space/letter-code.ts";
import {
  checkLetterCode,
  issueLetterBatch,
  LETTER_CODE_VALID_DAYS,
  LETTER_CODE_WRONG_TRIES,
  type LetterBatch,
  type LetterDeps,
} from "../../src/domain/merchant-space/letters.ts";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import type { MerchantDecisionDeps } from "../../src/domain/merchants/merchant-registry.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { renderLettersPdf } from "../../src/publish/pro/letters-pdf.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createLetterRepository } from "../../src/store/letter-repository.ts";
import { createMerchantRegistryView } from "../../src/store/merchant-registry-repository.ts";
import { codesIn, pdfPagesText } from "../helpers/letters-pdf.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-letters-"));
let db: Db;
let clock = new Date("2026-11-20T09:00:00.000Z");
const lifecycle = (): MerchantDecisionDeps => ({
  registry: createMerchantRegistryView(db),
  communes: createCommuneLookup(),
  now: () => clock,
});
const deps = (): LetterDeps => ({
  letters: createLetterRepository(db),
  codeKeys: createLetterCodeKeys(() => Buffer.alloc(32, 7)),
  now: () => clock,
});
const noPrint = async () => {};
let lyon: string;
let paris: string;
let suspended: string;

const declaration = (siret: string, name: string, street: string, postalCode: string, city: string) => ({
  siret,
  legal_name: `SARL ${name}`,
  business_name: name,
  naf_code: "10.71C",
  address: { street, postal_code: postalCode, city },
  founded_on: "2015-03-02",
});

beforeAll(() => {
  db = openDatabase(path.join(dir, "abeille.db"));
  lyon = addMerchant(
    lifecycle(),
    declaration("12345678200010", "Boulangerie Martin", "12 rue de la République", "69002", "Lyon"),
    "operator:test",
  ).abId;
  paris = addMerchant(
    lifecycle(),
    declaration("98765432400019", "Fromagerie Léa", "3 rue Oberkampf", "75011", "Paris"),
    "operator:test",
  ).abId;
  suspended = addMerchant(
    lifecycle(),
    declaration("55566677500013", "Garage Fermé", "1 route de Lyon", "69003", "Lyon"),
    "operator:test",
  ).abId;
  changeMerchantStatus(lifecycle(), suspended, { status: "SUSPENDED", reason: "fraude signalée" }, "operator:test");
});
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a code typed back from paper", () => {
  it("is sixteen characters of Crockford's base32, printed in four groups", () => {
    const values = [0, 31, 8, 17, 1, 23, 9, 10, 5, 3, 30, 27, 11, 14, 2, 29];
    let at = 0;
    const code = newLetterCode(() => values[at++] as number);
    expect(code).toBe("0Z8H1Q9A53YVBE2X");
    expect(formatLetterCode(code)).toBe("0Z8H-1Q9A-53YV-BE2X");
  });

  it("reads in any case, with spaces or dashes, O as 0 and I or L as 1", () => {
    expect(normalizeLetterCode("0z8h-1q9a-53yv-be2x")).toBe("0Z8H1Q9A53YVBE2X");
    expect(normalizeLetterCode(" 0Z8H 1Q9A 53YV BE2X ")).toBe("0Z8H1Q9A53YVBE2X");
    expect(normalizeLetterCode("oZ8H-iQ9A-53YV-BE2X")).toBe("0Z8H1Q9A53YVBE2X");
    expect(normalizeLetterCode("0Z8H-lQ9A-53YV-BE2X")).toBe("0Z8H1Q9A53YVBE2X");
  });

  it("is nothing when too short, too long or with a letter outside the alphabet", () => {
    expect(normalizeLetterCode("0Z8H-1Q9A-53YV-BE2")).toBeNull();
    expect(normalizeLetterCode("0Z8H-1Q9A-53YV-BE2XX")).toBeNull();
    expect(normalizeLetterCode("0Z8H-1Q9A-53YV-BE2U")).toBeNull();
    expect(normalizeLetterCode("")).toBeNull();
  });
});

async function batchFor(abIds: string[]): Promise<LetterBatch> {
  return issueLetterBatch(deps(), { abIds, limit: 100 }, noPrint);
}

describe("a batch of letters", () => {
  it("goes to listed establishments only, filtered by department, never a suspended one", async () => {
    const all = await issueLetterBatch(deps(), { limit: 100 }, noPrint);
    expect(all.letters.map((letter) => letter.recipient.abId).sort()).toEqual([lyon, paris].sort());
    const rhone = await issueLetterBatch(deps(), { department: "69", limit: 100 }, noPrint);
    expect(rhone.letters.map((letter) => letter.recipient.abId)).toEqual([lyon]);
    expect(rhone.letters[0]?.recipient).toEqual({
      abId: lyon,
      siret: "12345678200010",
      legalName: "SARL Boulangerie Martin",
      businessName: "Boulangerie Martin",
      street: "12 rue de la République",
      postalCode: "69002",
      city: "Lyon",
    });
    expect(rhone.letters[0]?.expiresAt).toBe(
      new Date(clock.getTime() + LETTER_CODE_VALID_DAYS * 86_400_000).toISOString(),
    );
  });

  it("refuses an establishment that is not listed, and records nothing", async () => {
    const before = db.$client.prepare("SELECT count(*) FROM letter_codes").pluck().get();
    const refused = await batchFor([lyon, suspended, "ab_zzzzzzzz"]).catch((error: unknown) => error);
    expect(isServiceError(refused) && refused.code).toBe("NOT_FOUND");
    expect((refused as Error).message).toBe(
      `no letter for ${suspended}, ab_zzzzzzzz: not a listed establishment (unknown, SUSPENDED or ARCHIVED)`,
    );
    expect(db.$client.prepare("SELECT count(*) FROM letter_codes").pluck().get()).toBe(before);
  });

  it("records nothing when printing fails", async () => {
    const before = db.$client.prepare("SELECT count(*) FROM letter_codes").pluck().get();
    const failed = await issueLetterBatch(deps(), { abIds: [lyon], limit: 1 }, async () => {
      throw new Error("disk full");
    }).catch((error: unknown) => error);
    expect((failed as Error).message).toBe("disk full");
    expect(db.$client.prepare("SELECT count(*) FROM letter_codes").pluck().get()).toBe(before);
  });

  it("stores keyed hashes only: no part of a code is in the database", async () => {
    const { letters } = await batchFor([paris]);
    const code = (letters[0]?.code ?? "").replaceAll("-", "");
    const rows = db.$client.prepare("SELECT * FROM letter_codes").all() as Record<string, unknown>[];
    const everything = JSON.stringify(rows);
    expect(everything).not.toContain(code.slice(0, 8));
    expect(everything).not.toContain(code.slice(8));
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(
      [
        "ab_id",
        "batch_id",
        "created_at",
        "expires_at",
        "failed_attempts",
        "letter_id",
        "locator_hash",
        "locked_at",
        "secret_hash",
        "superseded_at",
        "used_at",
      ].sort(),
    );
  });
});

describe("checking a typed code", () => {
  it("accepts the right code, as typed from paper, for its own establishment", async () => {
    const { letters } = await batchFor([lyon]);
    const code = letters[0]?.code as string;
    const check = await checkLetterCode(deps(), code.toLowerCase().replaceAll("-", " "));
    expect(check.ok && check.letter.abId).toBe(lyon);
  });

  it("refuses a code past its expiry", async () => {
    const { letters } = await batchFor([lyon]);
    const code = letters[0]?.code as string;
    const issuedAt = clock;
    clock = new Date(issuedAt.getTime() + LETTER_CODE_VALID_DAYS * 86_400_000 - 1000);
    expect((await checkLetterCode(deps(), code)).ok).toBe(true);
    clock = new Date(issuedAt.getTime() + LETTER_CODE_VALID_DAYS * 86_400_000);
    expect(await checkLetterCode(deps(), code)).toEqual({ ok: false, refusal: "expired" });
    clock = issuedAt;
  });

  it("refuses an older letter's code once a newer letter was sent to the establishment", async () => {
    const first = (await batchFor([lyon])).letters[0]?.code as string;
    const second = (await batchFor([lyon])).letters[0]?.code as string;
    expect(await checkLetterCode(deps(), first)).toEqual({ ok: false, refusal: "superseded" });
    expect((await checkLetterCode(deps(), second)).ok).toBe(true);
  });

  it("counts wrong tries on the letter a code locates, locks it at the limit, then refuses its right code", async () => {
    const code = (await batchFor([paris])).letters[0]?.code as string;
    const plain = code.replaceAll("-", "");
    // Same locator (first eight characters), another secret.
    const wrong = `${plain.slice(0, 8)}${plain[8] === "0" ? "1" : "0"}${plain.slice(9)}`;
    for (let attempt = 1; attempt < LETTER_CODE_WRONG_TRIES; attempt++) {
      expect(await checkLetterCode(deps(), wrong)).toEqual({ ok: false, refusal: "wrong" });
    }
    const locking = await checkLetterCode(deps(), wrong);
    expect(locking.ok).toBe(false);
    expect(!locking.ok && locking.refusal).toBe("locked");
    expect(!locking.ok && locking.lockedNow?.failedAttempts).toBe(LETTER_CODE_WRONG_TRIES);
    expect(!locking.ok && locking.lockedNow?.lockedAt).toBe(clock.toISOString());
    expect(await checkLetterCode(deps(), code)).toEqual({ ok: false, refusal: "locked" });
    const row = db.$client
      .prepare("SELECT failed_attempts, locked_at FROM letter_codes WHERE letter_id = ?")
      .get(!locking.ok ? locking.lockedNow?.letterId : "");
    expect(row).toEqual({ failed_attempts: LETTER_CODE_WRONG_TRIES, locked_at: clock.toISOString() });
    // The lock is in the merchant's audit log, once, without the code.
    const events = db.$client
      .prepare(
        "SELECT actor, action, changes, reason FROM merchant_events WHERE ab_id = ? AND action = 'letter_locked'",
      )
      .all(paris);
    expect(events).toEqual([
      {
        actor: `letter:${!locking.ok ? locking.lockedNow?.letterId : ""}`,
        action: "letter_locked",
        changes: "{}",
        reason: `${LETTER_CODE_WRONG_TRIES} wrong tries; a new letter is needed`,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(plain.slice(0, 8));
  });

  it("says wrong for a code no letter has, and malformed for what cannot be a code", async () => {
    expect(await checkLetterCode(deps(), "ZZZZ-ZZZZ-ZZZZ-ZZZZ")).toEqual({ ok: false, refusal: "wrong" });
    expect(await checkLetterCode(deps(), "1234")).toEqual({ ok: false, refusal: "malformed" });
  });

  it("does not recognise a code hashed under another key", async () => {
    const code = (await batchFor([lyon])).letters[0]?.code as string;
    const otherKey = { ...deps(), codeKeys: createLetterCodeKeys(() => Buffer.alloc(32, 9)) };
    expect(await checkLetterCode(otherKey, code)).toEqual({ ok: false, refusal: "wrong" });
  });
});

describe("the printable PDF", () => {
  it("has one A4 page per letter, addressed to the SIRENE name and address, with the code, its expiry and the space's address", async () => {
    const batch = await issueLetterBatch(deps(), { limit: 100 }, noPrint);
    const pdf = await renderLettersPdf(batch, {
      baseUrl: "https://abeille.example",
      operatorName: "Abeille SAS",
      teamEmail: "equipe@abeille.example",
    });
    const pages = await pdfPagesText(pdf);
    expect(pages).toHaveLength(2);
    const byName = (name: string) => pages.find((page) => page.includes(name)) ?? "";
    const martin = byName("Boulangerie Martin");
    expect(martin).toContain("SARL Boulangerie Martin\n12 rue de la République\n69002 Lyon");
    expect(martin).toContain("https://abeille.example/pro/code");
    expect(martin).toContain("SIRET 12345678200010");
    const flowing = martin.replaceAll("\n", " ");
    expect(flowing).toContain(
      "Il ne sert qu'une fois et expire le 19 janvier 2027. Après 5 essais erronés, il est bloqué",
    );
    expect(flowing).toContain("demandez alors un nouveau courrier à equipe@abeille.example.");
    const letter = batch.letters.find((one) => one.recipient.abId === lyon);
    expect(codesIn(martin)).toEqual([letter?.code]);
    expect(codesIn(byName("Fromagerie Léa"))).toEqual([
      batch.letters.find((one) => one.recipient.abId === paris)?.code,
    ]);
  });
});
