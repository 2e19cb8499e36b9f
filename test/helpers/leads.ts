/**
 * A lead as an agent sends it: the merchant's decision card's example payload with a person's
 * name, email and message, posted to /api/contact/brick; accepted (201), its id and tracking token.
 */
import { expect } from "vitest";
import type { TestServer } from "./test-server.ts";

export async function sendLead(
  server: Pick<TestServer, "getJson">,
  abId: string,
  person: { contact_name: string; contact_email: string; message: string },
): Promise<{ leadId: string; token: string }> {
  const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data;
  const created = await server.getJson("/api/contact/brick", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...card.lead_contract.example_payload, ...person }),
  });
  expect(created.status).toBe(201);
  return { leadId: created.body.lead_id as string, token: created.body.tracking_token as string };
}
