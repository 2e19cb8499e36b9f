import type { TestServer } from "./test-server.ts";

/** Registers an agent at level 1 or 2 (active at once) and answers its API key. */
export async function registeredKey(server: TestServer, agentName: string, level: 1 | 2 = 2): Promise<string> {
  const registered = await server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_name: agentName, contact_email: "ops@agent.example", requested_level: level }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${JSON.stringify(registered.body)}`);
  return registered.body.api_key as string;
}
