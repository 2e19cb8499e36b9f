import type { Action } from "../../schemas/envelope.ts";
import { action } from "../actions.ts";
import type { Capabilities } from "../capabilities.ts";
import { sectorOf } from "../sectors.ts";

/** The next steps an agent can take on one merchant; lead creation only when contact is allowed. */
export function merchantActions(
  baseUrl: string,
  abId: string,
  sector: string,
  capabilities: Pick<Capabilities, "state">,
): Action[] {
  const actions: Action[] = [
    action("resolve", "GET", `${baseUrl}/api/registry/resolve/${abId}`, "Full merchant profile"),
    action("decision_card", "GET", `${baseUrl}/api/merchants/${abId}/decision-card`, "Decision card"),
    action("verify", "GET", `${baseUrl}/api/registry/verify/${abId}`, "Signed verification manifest"),
  ];
  if (capabilities.state.can_contact) {
    const sectorFields = sectorOf(sector)?.leadFields ?? [];
    actions.push(
      action("create_lead", "POST", `${baseUrl}/api/contact/brick`, "Send a lead to this merchant", [
        { name: "ab_id", type: "string", required: true },
        { name: "contact_name", type: "string", required: true },
        { name: "contact_email", type: "email", required: true },
        { name: "lead_type", type: "enum", required: true },
        { name: "contact_phone", type: "tel", required: false },
        { name: "message", type: "text", required: false },
        ...sectorFields.map((field) => ({ name: `metadata.${field.name}`, type: field.type, required: false })),
      ]),
    );
  }
  actions.push(action("jsonld", "GET", `${baseUrl}/api/merchants/${abId}/jsonld`, "Schema.org JSON-LD"));
  return actions;
}
