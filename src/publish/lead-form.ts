import type { App } from "../app.ts";
import {
  LEAD_BASE_FIELDS,
  LEAD_SECTOR_FIELDS_PATH,
  sectorLeadFields,
  validateSectorMetadata,
} from "../domain/lead-contract.ts";
import { createLead } from "../domain/leads/create-lead.ts";
import type { LeadCaller } from "../domain/leads/duplicate-rule.ts";
import type { LeadField } from "../domain/sectors.ts";
import { errorCatalog } from "../errors/catalog.ts";
import { isServiceError, type ValidationIssue } from "../errors/service-error.ts";
import { LEAD_REQUEST_FIELDS, type LeadRequest, leadRequestSchema, parseStrictRequest } from "../schemas/leads.ts";
import { leadDeps, resolveDeps } from "../wiring.ts";
import type { RenderedDocument } from "./document.ts";
import { FORM_TOKEN_FIELD, frenchIssue, LEAD_FAILURES_FR, leadFailureFr } from "./lead-form-script.ts";
import { type LeadFormResult, renderMicrosite } from "./microsite.ts";
import { loadPublishedView, type MerchantView } from "./view.ts";

/**
 * The lead form of a merchant's page posted as a plain HTML form (no JavaScript): the fields as
 * the browser sends them, read as the lead request the page's script would have sent (sector
 * fields under `metadata`, numbers as numbers, yes/no as booleans), checked by the same schema and
 * sent by the same `createLead`, with the page's form token. The answer is the page again: the
 * tracking number and code with the way to the tracking page, or the form as typed with each
 * refusal in French next to its field (lead-form-script.ts holds the words, shared with the
 * script).
 */
export interface LeadFormAnswer {
  status: number;
  document: RenderedDocument;
}

/** Throws MERCHANT_NOT_FOUND for a merchant that is not published (the route answers the 404 page). */
export async function answerLeadForm(
  app: App,
  abId: string,
  fields: Readonly<Record<string, string>>,
  caller: LeadCaller,
): Promise<LeadFormAnswer> {
  const view = await loadPublishedView(resolveDeps(app), abId);
  const form = { token: app.pageFormTokens.issue(abId) };
  const { status, result } = await submit(app, view, fields, caller);
  return { status, document: renderMicrosite(view, { ...form, result }) };
}

async function submit(
  app: App,
  view: MerchantView,
  fields: Readonly<Record<string, string>>,
  caller: LeadCaller,
): Promise<{ status: number; result: LeadFormResult }> {
  const { merchant } = view.profile;
  const { request, values } = leadRequestFromForm(fields, merchant.abId, sectorLeadFields(merchant.sector));
  const refused = (code: keyof typeof errorCatalog, issues: readonly ValidationIssue[] = []) => ({
    status: errorCatalog[code].status,
    result: refusal(leadFailureFr(code), issues, values, formFieldNames(merchant.sector)),
  });
  let lead: LeadRequest;
  try {
    lead = parseStrictRequest(leadRequestSchema, request, LEAD_REQUEST_FIELDS);
  } catch (failure) {
    if (!isServiceError(failure) || failure.code !== "VALIDATION_ERROR") throw failure;
    // The sector fields are checked once the merchant is known: say their faults now too, so the
    // person corrects everything at once.
    const metadata = validateSectorMetadata(merchant.sector, request.metadata);
    return refused("VALIDATION_ERROR", [...(failure.details.issues ?? []), ...(metadata.ok ? [] : metadata.issues)]);
  }
  try {
    const receipt = await createLead(leadDeps(app), lead, {
      caller,
      formToken: fields[FORM_TOKEN_FIELD] ?? null,
      idempotencyKey: null,
    });
    return {
      status: receipt.status,
      result: {
        kind: "sent",
        leadId: receipt.leadId,
        trackingToken: receipt.trackingToken,
        deduplicated: receipt.deduplicated,
      },
    };
  } catch (failure) {
    if (isServiceError(failure) && LEAD_FAILURES_FR[failure.code] !== undefined) {
      return refused(failure.code, failure.details.issues);
    }
    throw failure;
  }
}

function refusal(
  message: string,
  issues: readonly ValidationIssue[],
  values: Readonly<Record<string, string>>,
  shown: ReadonlySet<string>,
): LeadFormResult {
  const fieldErrors: Record<string, string> = {};
  const otherErrors: string[] = [];
  for (const issue of issues) {
    const french = frenchIssue(issue.message);
    // One message a field (the first): the form shows one line under each. What concerns no field
    // the form shows (a field it does not have) is said above it.
    if (shown.has(issue.path)) fieldErrors[issue.path] ??= french;
    else if (!otherErrors.includes(french)) otherErrors.push(french);
  }
  return { kind: "refused", message, fieldErrors, otherErrors, values };
}

/** The names of the fields the form of a merchant of this sector shows. */
function formFieldNames(sector: string): ReadonlySet<string> {
  return new Set([
    ...LEAD_BASE_FIELDS.map((field) => field.name),
    ...sectorLeadFields(sector).map((field) => `${LEAD_SECTOR_FIELDS_PATH}.${field.name}`),
  ]);
}

/**
 * The lead request a form's fields make, and what was typed (to fill the form again). Empty fields
 * are "not given"; `metadata.<name>` fields go under `metadata`, typed as their sector field
 * says (a number that does not read as one stays text, and the schema says what is wrong); the
 * form token is not part of the request. Unknown fields are kept, so the strict schema names them.
 */
export function leadRequestFromForm(
  fields: Readonly<Record<string, string>>,
  abId: string,
  sectorFields: readonly LeadField[],
): { request: Record<string, unknown> & { metadata?: Record<string, unknown> }; values: Record<string, string> } {
  const byName = new Map(sectorFields.map((field) => [field.name, field]));
  const request: Record<string, unknown> & { metadata?: Record<string, unknown> } = { ab_id: abId };
  const metadata: Record<string, unknown> = {};
  const values: Record<string, string> = {};
  const prefix = `${LEAD_SECTOR_FIELDS_PATH}.`;
  for (const [name, raw] of Object.entries(fields)) {
    if (name === FORM_TOKEN_FIELD || name === "ab_id") continue;
    values[name] = raw;
    const value = raw.trim();
    if (value === "") continue;
    if (name.startsWith(prefix)) {
      const key = name.slice(prefix.length);
      metadata[key] = typedValue(byName.get(key), value);
    } else {
      request[name] = value;
    }
  }
  if (Object.keys(metadata).length > 0) request.metadata = metadata;
  return { request, values };
}

function typedValue(field: LeadField | undefined, value: string): unknown {
  if (field?.type === "number") {
    const number = Number(value.replace(/\s/g, "").replace(",", "."));
    return /^[0-9\s.,+-]+$/.test(value) && Number.isFinite(number) ? number : value;
  }
  if (field?.type === "boolean") return value === "true" ? true : value === "false" ? false : value;
  return value;
}
