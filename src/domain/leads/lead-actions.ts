import type { Action } from "../../schemas/envelope.ts";
import { action } from "../actions.ts";

/** Next steps after a lead is accepted or found: follow it, write on it, look at the merchant. */
export function leadActions(baseUrl: string, leadId: string, abId: string): Action[] {
  return [
    action(
      "lead_status",
      "GET",
      `${baseUrl}/api/leads/${leadId}`,
      "Lead status; present the tracking token in the X-Tracking-Token header (or ?token=)",
      [{ name: "token", type: "string", required: true }],
    ),
    action(
      "send_message",
      "POST",
      `${baseUrl}/api/leads/${leadId}/messages`,
      "Send a follow-up message to the merchant (at most 2000 characters)",
      [
        { name: "tracking_token", type: "string", required: true },
        { name: "message", type: "text", required: true },
      ],
    ),
    action("merchant", "GET", `${baseUrl}/api/registry/resolve/${abId}`, "The merchant's profile"),
  ];
}
