// The part of oidc-provider 9 (which ships no types) that the authorization server
// (api/oauth/) and the tests' identity provider (test/fixtures/oidc-provider.ts) use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type Configuration = Record<string, unknown>;
  /** The library's Koa context; only passed through here. */
  export type KoaContextWithOIDC = unknown;
  /** The part of the library's Koa context its events and middleware see here. */
  export interface ProviderContext {
    oidc?: { route?: string };
    state: Record<PropertyKey, unknown>;
  }

  interface InteractionDetails {
    uid: string;
    params: Record<string, unknown>;
    prompt: { name: string; reasons?: string[] };
    session?: { accountId?: string };
    grantId?: string;
  }

  class Grant {
    constructor(fields: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  class Client {
    static find(id: string): Promise<Client | undefined>;
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    redirectUriAllowed(uri: string): boolean;
    grantTypeAllowed(type: string): boolean;
  }

  class AccessToken {
    constructor(fields: { accountId: string; client: Client | undefined; grantId: string; aud?: string; scope?: string });
    static find(value: string): Promise<AccessToken | undefined>;
    save(): Promise<string>;
    accountId: string;
    clientId: string;
    grantId: string;
    aud?: string | string[];
    scope?: string;
    isExpired: boolean;
  }

  class OIDCProviderError extends Error {
    constructor(description?: string);
    error: string;
    error_description?: string;
    status: number;
  }

  export const errors: {
    InvalidTarget: typeof OIDCProviderError;
    InvalidRequest: typeof OIDCProviderError;
    AccessDenied: typeof OIDCProviderError;
  };

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    proxy: boolean;
    issuer: string;
    Grant: typeof Grant;
    Client: typeof Client;
    AccessToken: typeof AccessToken;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: 'server_error', listener: (ctx: unknown, err: Error) => void): this;
    on(event: 'grant.revoked', listener: (ctx: ProviderContext, grantId: string) => void): this;
    /** A Koa middleware run around the library's own, before it writes the answer. */
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): this;
    on(event: string, listener: (...args: never[]) => void): this;
  }
}
