import { convertSession } from "../../../domain/attribution/sessions.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, parseInput, readJsonBody, route } from "../../../http/route.ts";
import { convertSessionBodySchema } from "../../../schemas/attribution.ts";

/** POST /api/attribution/convert: 200 with the conversion in `data`; 404 unknown session; 409 converted or expired. */
export const POST = route("attribution", async ({ app, request, caller, context }) => {
  const input = parseInput(convertSessionBodySchema, await readJsonBody(request));
  const conversion = convertSession(
    { attribution: app.attribution, merchants: app.merchants, now: app.now },
    input,
    caller,
  );
  return ok(context, { data: conversion }, { headers: { "cache-control": "no-store" } });
});

export const ALL = methodNotAllowed(["POST"]);
