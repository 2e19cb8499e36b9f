/**
 * Trust in a Q&A answer cannot be borrowed, over HTTP on the built server: an answer the merchant
 * corrects from its space is its declaration everywhere after the refresh (the Q&A cluster, the
 * decision card's capsule and clusters, ai.md, the AI digest, the public page) and ranks after the
 * verified ones, a mere vouch is the merchant's reading and not a verification; and an answer
 * resting on the identity check reads declared once that check expires, with no write, on every
 * surface at that instant.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDateFr } from "../../src/publish/format-fr.ts";
import {
  decodeHtml,
  type SignedIn,
  signInThroughProConnect,
  startServerWithProConnect,
  type TestProConnect,
} from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { type JsonObject, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({
    count: 120,
    env: { PRO_SIGN_INS_HOURLY: "1000", PRO_CLAIMS_HOURLY: "1000", PRO_EDITS_HOURLY: "1000" },
  }));
}, 120_000);
afterAll(async () => {
  await close?.();
});

const database = () => new Database(path.join(server.dataDir, "abeille.db"));
function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = database();
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

interface StoredNode {
  node_id: string;
  cluster_id: string;
  question: string;
  answer: string;
  fact_level: string;
  fact_signal: string | null;
  human_verified_at: string | null;
}
const nodesOf = (abId: string) =>
  query<StoredNode>(
    `SELECT n.node_id, n.cluster_id, n.question, n.answer, n.fact_level, n.fact_signal, n.human_verified_at
     FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = ? ORDER BY c.position, n.position`,
    abId,
  );

/** Active demo merchants with at least `verified` answers resting on a signal, in ab_id order. */
const withVerifiedAnswers = (verified: number) =>
  query<{ ab_id: string; siret: string }>(
    `SELECT m.ab_id, m.siret FROM merchants m JOIN qa_clusters c ON c.ab_id = m.ab_id JOIN qa_nodes n ON n.cluster_id = c.cluster_id
     WHERE m.status = 'ACTIVE' GROUP BY m.ab_id HAVING sum(n.fact_level = 'verified' AND n.fact_signal IS NOT NULL) >= ?
     ORDER BY m.ab_id`,
    verified,
  );

async function refresh(): Promise<void> {
  const job = await runJob(["jobs/refresh.ts", "--quiet"], { dataDir: server.dataDir, baseUrl: TEST_BASE_URL });
  expect(job.code, job.stderr).toBe(0);
}

async function claimed(abId: string, siret: string): Promise<SignedIn> {
  const person = await signInThroughProConnect(server.url, provider, { siret, siren: siret.slice(0, 9) });
  const claim = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } });
  expect(claim.status).toBe(303);
  return person;
}

/** What every surface says of a merchant's answers, in the store's order of nodes. */
async function surfaces(abId: string, nodes: readonly StoredNode[]) {
  const clusters = new Map<string, JsonObject>();
  for (const clusterId of new Set(nodes.map((node) => node.cluster_id))) {
    clusters.set(clusterId, (await server.getJson(`/api/clusters/${clusterId}`)).body.data);
  }
  const published = (node: StoredNode) =>
    ((clusters.get(node.cluster_id)?.nodes ?? []) as JsonObject[]).find(
      (item) => item.id === node.node_id,
    ) as JsonObject;
  const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data;
  const cardNodes = (card.merchant_clusters as JsonObject[]).flatMap((cluster) => cluster.nodes as JsonObject[]);
  const aiMd = await (await server.get(`/m/${abId}/ai.md`)).text();
  const digest = (await server.getJson(`/api/merchants/${abId}/ai-digest`)).body.data;
  const page = decodeHtml(await (await server.get(`/m/${abId}/`)).text());
  return {
    clusters: nodes.map((node) => {
      const item = published(node);
      return [item.confidence, item.verification.fact_level, item.grounding.grounded, item.verification.rests_on];
    }),
    summaries: [...clusters.values()].map((cluster) => cluster.verification.by_fact_level),
    card: nodes.map((node) => cardNodes.find((item) => item.id === node.node_id)?.verification.fact_level),
    capsule: (card.decision_card.knowledge_capsule.top_questions as JsonObject[]).map((item) => [
      item.question,
      item.confidence,
    ]),
    aiMd: nodes.map((node) => {
      const at = aiMd.indexOf(`#${node.node_id}_`);
      return /_Niveau de preuve : (\w+),/.exec(aiMd.slice(aiMd.lastIndexOf("_Niveau de preuve", at), at))?.[1];
    }),
    digest: (digest.citable_snippets as { text: string; url: string }[])
      .filter((item) => item.url.includes("/api/clusters/"))
      .map((item) => item.text),
    page: nodes.map((node) => {
      const block = page.slice(page.indexOf(`<details id="q-${node.node_id}">`));
      return /<p class="note">([^<]*?)\. <a/.exec(block)?.[1];
    }),
  };
}

describe("an answer the merchant corrects", () => {
  it("is the merchant's declaration on every surface after the refresh, and ranks after the verified ones", async () => {
    const listing = withVerifiedAnswers(2)[0];
    if (!listing) throw new Error("the demo has no active merchant with two verified answers");
    const abId = listing.ab_id;
    const person = await claimed(abId, listing.siret);
    const before = nodesOf(abId);
    const verified = before.filter((node) => node.fact_level === "verified");
    const [vouched, corrected] = verified as [StoredNode, StoredNode];
    const correction = "Nous vous recevons désormais au 4 place du Marché, dans la même rue. Entrée par la cour.";

    const vouch = await person.fetch(`/pro/${abId}/`, {
      form: {
        csrf: person.csrfToken,
        section: "question",
        node_id: vouched.node_id,
        answer: vouched.answer,
        action: "verify",
      },
    });
    expect(decodeHtml(await vouch.text())).toContain("La réponse est validée telle quelle.");
    const correct = await person.fetch(`/pro/${abId}/`, {
      form: {
        csrf: person.csrfToken,
        section: "question",
        node_id: corrected.node_id,
        answer: correction,
        action: "correct",
      },
    });
    const space = decodeHtml(await correct.text());
    expect(space).toContain("Votre correction est enregistrée.");

    const after = nodesOf(abId);
    const stored = (node: StoredNode) => after.find((item) => item.node_id === node.node_id) as StoredNode;
    const reviewedOn = formatDateFr(stored(corrected).human_verified_at);
    expect(
      query<{
        node_id: string;
        fact_level: string;
        fact_signal: string | null;
        verification_level: string;
        edited: number;
      }>(
        `SELECT node_id, fact_level, fact_signal, verification_level, edited_by_merchant AS edited FROM qa_nodes
         WHERE node_id IN (?, ?) ORDER BY node_id = ? DESC`,
        vouched.node_id,
        corrected.node_id,
        vouched.node_id,
      ),
    ).toEqual([
      {
        node_id: vouched.node_id,
        fact_level: "verified",
        fact_signal: vouched.fact_signal,
        verification_level: "merchant_reviewed",
        edited: 0,
      },
      {
        node_id: corrected.node_id,
        fact_level: "declared",
        fact_signal: null,
        verification_level: "merchant_reviewed",
        edited: 1,
      },
    ]);
    // The space says how agents read it.
    expect(space).toContain(
      `Les agents lisent : réponse rédigée par le commerçant, non vérifiée, relue par le commerçant le ${reviewedOn}.`,
    );

    await refresh();
    const seen = await surfaces(abId, [vouched, corrected]);
    const restsOn = { signal: vouched.fact_signal, status: "verified", expires_at: expect.any(String) };
    expect(seen.clusters).toEqual([
      ["verified", "verified", true, restsOn],
      ["declared", "declared", false, null],
    ]);
    expect(seen.card).toEqual(["verified", "declared"]);
    expect(seen.aiMd).toEqual(["verified", "declared"]);
    const label =
      vouched.fact_signal === "siret_verified"
        ? "SIRET vérifié (répertoire SIRENE)"
        : "Adresse vérifiée (Base Adresse Nationale)";
    expect(seen.page).toEqual([
      `Réponse vérifiée : elle repose sur « ${label} », en cours de validité, relue par le commerçant le ${formatDateFr(stored(vouched).human_verified_at)}`,
      `Réponse rédigée par le commerçant, non vérifiée, relue par le commerçant le ${reviewedOn}`,
    ]);
    // Ranked by what backs them: every verified answer before the corrected one.
    const capsule = seen.capsule.map(([, confidence]) => confidence);
    expect(capsule).toEqual([...capsule].sort((a, b) => rank(a) - rank(b)));
    const correctedAt = seen.capsule.findIndex(([question]) => question === corrected.question);
    expect(seen.capsule[correctedAt]).toEqual([corrected.question, "declared"]);
    expect(capsule.lastIndexOf("verified")).toBeLessThan(correctedAt);
    const snippet = seen.digest.findIndex((text) => text.startsWith(corrected.question));
    expect(seen.digest[snippet]).toBe(
      `${corrected.question} ${correction.split(". ")[0]}. (réponse déclarative, non vérifiée)`,
    );
    expect(seen.digest.slice(0, snippet).some((text) => text.endsWith("(réponse vérifiée)"))).toBe(true);
    expect(seen.digest.slice(snippet).some((text) => text.endsWith("(réponse vérifiée)"))).toBe(false);
  }, 120_000);
});

const rank = (confidence: unknown) => ["verified", "observed", "declared"].indexOf(String(confidence));

describe("an answer resting on the identity check", () => {
  it("reads declared on every surface from the instant the check expires, with no write", async () => {
    const taken = new Set(
      withVerifiedAnswers(2)
        .slice(0, 1)
        .map((row) => row.ab_id),
    );
    const abId = query<{ ab_id: string }>(
      `SELECT m.ab_id FROM merchants m JOIN qa_clusters c ON c.ab_id = m.ab_id JOIN qa_nodes n ON n.cluster_id = c.cluster_id
       WHERE m.status = 'ACTIVE' AND n.fact_level = 'verified' AND n.fact_signal = 'siret_verified' AND n.edited_by_merchant = 0
       GROUP BY m.ab_id ORDER BY m.ab_id`,
    ).find((row) => !taken.has(row.ab_id))?.ab_id as string;
    const answer = nodesOf(abId).find((node) => node.fact_signal === "siret_verified") as StoredNode;

    // The check ends in 20 seconds, then the refresh publishes the merchant's files, valid until that instant.
    const expiry = new Date(Date.now() + 20_000).toISOString();
    const db = database();
    db.prepare("UPDATE signals SET expires_at = ? WHERE ab_id = ? AND key = 'siret_verified'").run(expiry, abId);
    db.close();
    await refresh();

    const before = await surfaces(abId, [answer]);
    expect(Date.now()).toBeLessThan(Date.parse(expiry));
    expect([
      before.clusters,
      before.card,
      before.aiMd,
      before.capsule.find(([question]) => question === answer.question),
    ]).toEqual([
      [["verified", "verified", true, { signal: "siret_verified", status: "verified", expires_at: expiry }]],
      ["verified"],
      ["verified"],
      [answer.question, "verified"],
    ]);
    expect(before.page[0]).toMatch(
      /^Réponse vérifiée : elle repose sur « SIRET vérifié \(répertoire SIRENE\) », en cours de validité/,
    );
    expect(before.digest.find((text) => text.startsWith(answer.question))).toMatch(/\(réponse vérifiée\)$/);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiry) - Date.now()) + 250));
    const after = await surfaces(abId, [answer]);
    expect([after.clusters, after.card, after.aiMd]).toEqual([
      [["declared", "declared", false, { signal: "siret_verified", status: "expired", expires_at: expiry }]],
      ["declared"],
      ["declared"],
    ]);
    expect(after.capsule.find(([question]) => question === answer.question)).toEqual([answer.question, "declared"]);
    expect(after.page[0]).toMatch(
      new RegExp(
        `^Réponse non vérifiée : la preuve sur laquelle elle repose, « SIRET vérifié \\(répertoire SIRENE\\) », a expiré le ${formatDateFr(expiry)}`,
      ),
    );
    expect(after.digest.find((text) => text.startsWith(answer.question))).toMatch(
      /\(réponse déclarative, non vérifiée\)$/,
    );
  }, 120_000);
});
