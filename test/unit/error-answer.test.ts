/**
 * The one place a failure becomes an answer (src/http/respond.ts errorAnswer): a ServiceError
 * carried as the cause of a library's wrapper (drizzle wraps what the PostgreSQL pool raised) is
 * answered as itself, with its status and Retry-After; anything else stays an internal error.
 */
import { describe, expect, it } from "vitest";
import { ServiceError, serviceErrorOf } from "../../src/errors/service-error.ts";
import type { RequestContext } from "../../src/http/envelope.ts";
import { errorAnswer } from "../../src/http/respond.ts";
import { setLogLevel } from "../../src/logging.ts";

const context: RequestContext = {
  baseUrl: "https://registre.example",
  requestId: "req-1",
  selfUrl: "https://registre.example/api/health",
  now: new Date("2026-11-27T02:00:00.000Z"),
};

describe("a failure's answer", () => {
  it("answers a store outage wrapped by a query builder as 503 STORE_UNAVAILABLE with Retry-After", () => {
    const outage = new ServiceError("STORE_UNAVAILABLE", undefined, { retryAfterSeconds: 2 });
    const wrapped = new Error('Failed query: select "key" from "settings"', { cause: outage });
    expect(serviceErrorOf(wrapped)).toBe(outage);
    const answer = errorAnswer(context, wrapped);
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("2");
    expect((answer.body.error as { code: string }).code).toBe("STORE_UNAVAILABLE");
  });

  it("keeps any other fault an internal error, its words not shown", () => {
    setLogLevel("silent");
    const answer = errorAnswer(context, new Error("secret detail", { cause: new Error("deeper") }));
    expect(answer.status).toBe(500);
    expect((answer.body.error as { code: string; message: string }).message).toBe(
      "Unexpected fault (request id req-1)",
    );
  });
});
