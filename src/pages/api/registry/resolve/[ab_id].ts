import { renderPrepared } from "../../../../http/envelope.ts";
import { reply } from "../../../../http/reply.ts";
import { preparedResolve } from "../../../../http/resolve-answer.ts";
import { JSON_TYPE } from "../../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";

/**
 * The merchant's full profile. The answer is kept serialized until the store changes
 * (src/http/resolve-answer.ts); its weak ETag lets a client that has it get 304 Not Modified
 * (the server edge compares it, src/http/conventions.ts).
 */
export const GET = route(operation("resolveMerchant"), async ({ app, context, pathParams }) => {
  const { ab_id } = pathParams();
  const prepared = await preparedResolve(app, ab_id, context);
  return reply(200, renderPrepared(context, prepared), {
    "content-type": JSON_TYPE,
    etag: prepared.etag,
    "x-request-id": context.requestId,
  });
});

export const ALL = methodNotAllowed(["GET"]);
