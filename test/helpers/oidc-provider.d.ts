/**
 * The little of oidc-provider's API the test provider uses (the package ships no types).
 * https://github.com/panva/node-oidc-provider/blob/main/docs/README.md
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface Configuration {
    clients?: Record<string, unknown>[];
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    features?: Record<string, unknown>;
    findAccount?: (context: unknown, id: string) => Account | undefined | Promise<Account | undefined>;
    pkce?: { required?: () => boolean; methods?: string[] };
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys?: string[] };
    ttl?: Record<string, number>;
    responseTypes?: string[];
    [setting: string]: unknown;
  }

  export interface InteractionDetails {
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export interface InteractionPrompt {
    checks: { remove(name: string): void };
  }

  export const interactionPolicy: {
    base(): { get(name: string): InteractionPrompt | undefined } & unknown[];
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: new (properties: {
      accountId?: string;
      clientId?: unknown;
    }) => Grant;
  }
}
