/**
 * Client of DILA's BODACC dataset on its Opendatasoft portal (`annonces-commerciales`, Explore API
 * v2.1): the announcements published on a day, as the dataset's JSON Lines export gives them
 * (`GET {base}/exports/jsonl?where=dateparution = date'AAAA-MM-JJ'`, ODSQL; the layout the BODACC
 * import reads, src/import/bodacc/records.ts). Open data, no key. Paced at two requests a second,
 * timeouts and 5xx tried again, a 429 waited for (src/official/paced-get.ts); any other answer than
 * a 200 is refused (OfficialRegistryError).
 */
import { OfficialRegistryError } from "../domain/merchants/official-registry-lookup.ts";
import type { BodaccDaysSource } from "../import/bodacc/daily.ts";
import { createPacedGet } from "./paced-get.ts";
import { createRequestPacer, type RequestPacer, sleep } from "./request-pacer.ts";

export const BODACC_API_URL =
  "https://bodacc-datadila.opendatasoft.com/api/explore/v2.1/catalog/datasets/annonces-commerciales";
/** A day's issue is a few thousand announcements of a few kilobytes. */
const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export interface BodaccApiOptions {
  baseUrl: string;
  timeoutMs: number;
  userAgent: string;
  pacer?: RequestPacer;
  sleep?: (ms: number) => Promise<void>;
  maxAnswerBytes?: number;
}

export function createBodaccApiClient(options: BodaccApiOptions): BodaccDaysSource {
  const base = options.baseUrl.replace(/\/+$/, "");
  const get = createPacedGet({
    pacer: options.pacer ?? createRequestPacer({ perSecond: 2, marginMs: 50 }),
    timeoutMs: options.timeoutMs,
    headers: { accept: "application/json", "user-agent": options.userAgent },
    maxAttempts: 4,
    backoffMs: 5_000,
    maxRetryAfterMs: 300_000,
    defaultRetryAfterMs: 60_000,
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    expectedSize: "a day's announcements are a few megabytes",
    sleep: options.sleep ?? sleep,
  });
  return {
    async announcementsPublishedOn(day) {
      const url = `${base}/exports/jsonl?where=${encodeURIComponent(`dateparution = date'${day}'`)}`;
      const { status, body } = await get(url);
      if (status !== 200) throw new OfficialRegistryError("refused", url, `${url}: answered ${status}`);
      return { url, text: body };
    },
  };
}
