/**
 * Writes the server.json of a deployment for the official MCP Registry (schema 2025-12-11): the
 * name, version, description and streamable-http remote of the MCP server card that deployment
 * serves (src/mcp/discovery.ts), so the registry entry and the card agree.
 *
 *   npm run --silent server-json -- <BASE_URL> > server.json
 *
 * Exit status:
 *   0  done: server.json on stdout
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { mcpRegistryServerJson } from "../src/mcp/discovery.ts";
import { EXIT_DONE, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";

await runCommand(
  {
    name: "server-json",
    usage: ["npm run server-json -- <BASE_URL>"],
    notes: [
      "BASE_URL is the deployment's public URL (https://abeille.example.fr): the name is its host in reverse-DNS form;",
      "with npm's --silent, stdout is the file: npm run --silent server-json -- <BASE_URL> > server.json",
    ],
    options: {},
    allowPositionals: true,
    exitStatuses: [[EXIT_DONE, "done: server.json on stdout"], USAGE_STATUS],
  },
  ({ positionals }) => {
    const [baseUrl, ...extra] = positionals;
    if (!baseUrl || extra.length > 0) throw new UsageError("give the deployment's BASE_URL, once");
    if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
      throw new UsageError(`not an http(s) URL: ${baseUrl}`);
    }
    process.stdout.write(`${JSON.stringify(mcpRegistryServerJson(baseUrl.replace(/\/+$/, "")), null, 2)}\n`);
  },
);
