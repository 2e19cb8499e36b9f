import { action } from "../../../domain/actions.ts";
import { submitPlatformContact } from "../../../domain/platform-contact/submit-platform-contact.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, readJsonBody, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { parseStrictRequest } from "../../../schemas/leads.ts";
import { PLATFORM_CONTACT_FIELDS } from "../../../schemas/platform-contact.ts";

/** POST /api/contact/platform: a message to the platform team, emailed to them through the outbox. */
export const POST = route(operation("contactPlatform"), async ({ app, request, context, operation }) => {
  const body = await readJsonBody(request);
  const contact = parseStrictRequest(operation.body, body, PLATFORM_CONTACT_FIELDS);
  const receipt = await submitPlatformContact(
    { platformContacts: app.platformContacts, now: app.now, notifyOutbox: app.notifyOutbox },
    contact,
  );
  const base = app.config.baseUrl;
  return ok(
    context,
    {
      topLevel: { contact_id: receipt.contact_id, status: receipt.status },
      actions: [
        action("search", "GET", `${base}/api/registry/search?q={q}`, "Search the registry", [
          { name: "q", type: "string", required: true },
        ]),
        action("describedby", "GET", `${base}/openapi.json`, "Read the API description"),
      ],
    },
    { status: 201, headers: { "cache-control": "no-store" } },
  );
});

export const ALL = methodNotAllowed(["POST"]);
