import { z } from "zod";
import { type CERTIFICATION_LEVELS, PERMISSIONS } from "../domain/agents/levels.ts";
import { described, isOneLine, ONE_LINE_MESSAGE } from "./common.ts";

export const AGENT_NAME_MAX = 100;
export const AGENT_CAPABILITIES_MAX = 20;
export const AGENT_CAPABILITY_MAX = 50;
/** An API key is abk_ and 40 characters; a longer token cannot be one. */
export const AGENT_KEY_MAX = 200;

const certificationLevelSchema = z
  .number({ message: "must be an integer from 1 to 4" })
  .int("must be an integer from 1 to 4")
  .min(1, "must be an integer from 1 to 4")
  .max(4, "must be an integer from 1 to 4")
  .transform((value) => value as (typeof CERTIFICATION_LEVELS)[number]);

/** POST /api/agents/register. Unknown fields are refused so that a misspelt field is not silently lost. */
export const registerAgentBodySchema = z
  .object(
    described(
      {
        agent_name: z
          .string({ message: "is required" })
          .trim()
          .min(1, "must not be empty")
          .max(AGENT_NAME_MAX, `must be at most ${AGENT_NAME_MAX} characters`)
          .refine(isOneLine, ONE_LINE_MESSAGE),
        agent_url: z
          .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
          .max(2048, "must be at most 2048 characters")
          .optional(),
        contact_email: z.email("must be an email address").max(254, "must be at most 254 characters"),
        requested_level: certificationLevelSchema,
        capabilities: z
          .array(
            z
              .string()
              .trim()
              .min(1, "must not be empty")
              .max(AGENT_CAPABILITY_MAX, `must be at most ${AGENT_CAPABILITY_MAX} characters`)
              .refine(isOneLine, ONE_LINE_MESSAGE),
          )
          .max(AGENT_CAPABILITIES_MAX, `must list at most ${AGENT_CAPABILITIES_MAX} capabilities`)
          .optional(),
      },
      {
        agent_name: "Your agent's name, as operators and merchants will see it",
        agent_url: "Your agent's or its publisher's web site (http or https)",
        contact_email: "Where the platform team can reach the agent's operator",
        requested_level: "1 Reader, 2 Lead submitter (active at once); 3 and 4 wait for manual verification",
        capabilities: "What the agent does, in short phrases (e.g. search, leads)",
      },
    ),
  )
  .strict()
  .meta({ id: "RegisterAgentRequest" });
export type RegisterAgentBody = z.output<typeof registerAgentBodySchema>;

const permissionSchema = z.enum(PERMISSIONS);

/** The Agent record of the 201 answer (fields at the top level of the envelope). `api_key` is shown once. */
export const agentRegistrationSchema = z
  .object({
    success: z.literal(true),
    agent_id: z.string(),
    api_key: z.string().regex(/^abk_[0-9A-Za-z]{40}$/),
    certification_level: z.number().int().min(1).max(4),
    requested_level: z.number().int().min(1).max(4),
    permissions: z.array(permissionSchema),
    rate_limit_hourly: z.number().int().positive(),
    status: z.enum(["active", "pending_verification"]),
  })
  .meta({ id: "AgentRegistration" });

export const verifyAgentQuerySchema = z.object({
  token: z
    .string()
    .min(1, "must not be empty (send the key in the Authorization header instead)")
    .max(AGENT_KEY_MAX, `must be at most ${AGENT_KEY_MAX} characters`)
    .optional()
    .meta({
      description:
        "Deprecated: the API key to check, for clients that cannot set a header. Prefer Authorization: Bearer <api key> (a key in a URL ends up in proxy logs and shell history)",
      deprecated: true,
    }),
});

/** GET /api/agents/verify: fields at the top level; `valid: false` with nulls for unknown, revoked and malformed keys. */
export const agentVerificationSchema = z
  .object({
    success: z.literal(true),
    valid: z.boolean(),
    agent_id: z.string().nullable(),
    agent_name: z.string().nullable(),
    certification_level: z.number().int().min(1).max(4).nullable(),
    requested_level: z.number().int().min(1).max(4).nullable(),
    permissions: z.array(permissionSchema),
    rate_limit_hourly: z.number().int().positive().nullable(),
    status: z.enum(["active", "pending_verification", "suspended"]).nullable(),
  })
  .meta({ id: "AgentVerification" });
