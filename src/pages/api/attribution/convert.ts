import { convertSession } from "../../../domain/attribution/sessions.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";

/** POST /api/attribution/convert: 200 with the conversion in `data`; 404 unknown session; 409 converted or expired. */
export const POST = route(operation("convertAttributionSession"), async ({ app, caller, context, body }) => {
  const input = await body();
  const conversion = await convertSession(
    { attribution: app.attribution, merchants: app.merchants, now: app.now },
    input,
    caller,
  );
  return ok(context, { data: conversion }, { headers: { "cache-control": "no-store" } });
});

export const ALL = methodNotAllowed(["POST"]);
