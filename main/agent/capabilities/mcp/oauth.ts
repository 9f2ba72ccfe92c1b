import { createHash, randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SecretAccess } from '#contract/capability';

/** What is kept for one server, in the key store beside API keys (keychain in Electron, the 0600 file elsewhere). */
interface Stored {
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
}

/** A sign-in started for a server and not finished: found again by its `state`. */
interface Pending {
  name: string;
  url: string;
  provider: ServerAuth;
  expires: number;
}

const PENDING_MS = 15 * 60_000;
const secretKey = (name: string) => `mcp.oauth.${name}`;

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'" });
  res.end(
    `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><body style="font:16px system-ui;margin:3em"><h1>${escape(title)}</h1><p>${escape(text)}</p>`,
  );
}

/**
 * OAuth for remote MCP servers, through the SDK's client auth (discovery, dynamic registration, PKCE,
 * refresh). Deft is a public client with a loopback redirect: a small listener on 127.0.0.1 receives the
 * authorization code; the sign-in page opens in the user's browser from Settings → MCP servers. A
 * callback is accepted only with the random `state` of a sign-in Deft started, once.
 */
export class McpOAuth {
  private listener: Promise<{ server: Server; redirectUrl: string }> | null = null;
  private readonly pending = new Map<string, Pending>();
  private readonly providers = new Map<string, ServerAuth>();
  private readonly authorizeUrls = new Map<string, string>();

  constructor(
    private readonly options: {
      secrets: SecretAccess;
      /** Seeds the preferred callback port, so the registered redirect stays the same between runs. */
      workspace: string;
      /** A sign-in finished: connect the server again. */
      onSignedIn(name: string): void;
    },
  ) {}

  /** The provider for a server at `url` (one per server, kept across reconnects). */
  async provider(name: string, url: string): Promise<OAuthClientProvider> {
    const { redirectUrl } = await this.listen();
    const existing = this.providers.get(name);
    if (existing && existing.url === url && existing.redirectUrl === redirectUrl) return existing;
    const provider = new ServerAuth(name, url, redirectUrl, this.options.secrets, {
      started: (state) => this.pending.set(state, { name, url, provider, expires: Date.now() + PENDING_MS }),
      redirect: (authorizeUrl) => this.authorizeUrls.set(name, authorizeUrl),
    });
    this.providers.set(name, provider);
    return provider;
  }

  /** The page where the user signs in to `name`, when a sign-in is waiting for them. */
  authorizeUrl(name: string): string | undefined {
    return this.authorizeUrls.get(name);
  }

  async close(): Promise<void> {
    const listener = await this.listener?.catch(() => null);
    this.listener = null;
    await new Promise<void>((resolve) => (listener ? listener.server.close(() => resolve()) : resolve()));
  }

  private listen(): Promise<{ server: Server; redirectUrl: string }> {
    this.listener ??= (async () => {
      const server = createServer((req, res) => void this.callback(req, res));
      const preferred = 20_000 + (createHash('sha256').update(this.options.workspace).digest().readUInt16BE(0) % 40_000);
      const port = await new Promise<number>((resolve, reject) => {
        const bind = (p: number, fallback: boolean) => {
          server.once('error', (error: NodeJS.ErrnoException) => (fallback && error.code === 'EADDRINUSE' ? bind(0, false) : reject(error)));
          server.listen(p, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
        };
        bind(preferred, true);
      });
      // The listener must never keep a process alive (CLI runs, tests).
      server.unref();
      return { server, redirectUrl: `http://127.0.0.1:${port}/callback` };
    })();
    return this.listener;
  }

  private async callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback')
      return page(res, 404, 'Not found', 'This address only receives sign-ins to MCP servers started by Deft.');
    const state = url.searchParams.get('state') ?? '';
    const flow = this.pending.get(state);
    if (!flow || flow.expires < Date.now())
      return page(res, 400, 'Sign-in not recognised', 'Deft did not start this sign-in, or it is too old. Start it again from Settings → MCP servers.');
    this.pending.delete(state);
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error || !code)
      return page(
        res,
        400,
        `Sign-in to ${flow.name} failed`,
        `The server said: ${error ?? 'no authorization code'} ${url.searchParams.get('error_description') ?? ''}`.trim(),
      );
    try {
      const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
      const result = await auth(flow.provider, { serverUrl: flow.url, authorizationCode: code });
      if (result !== 'AUTHORIZED') throw new Error('the server did not give Deft a token');
      this.authorizeUrls.delete(flow.name);
      page(res, 200, `Deft is signed in to ${flow.name}`, 'You can close this tab and go back to Deft.');
      this.options.onSignedIn(flow.name);
    } catch (failure) {
      page(res, 400, `Sign-in to ${flow.name} failed`, (failure as Error).message);
    }
  }
}

/** The SDK's view of one server's sign-in: its registration and tokens kept in the key store. */
class ServerAuth implements OAuthClientProvider {
  private verifier: string | undefined;

  constructor(
    readonly name: string,
    readonly url: string,
    readonly redirectUrl: string,
    private readonly secrets: SecretAccess,
    private readonly hooks: { started(state: string): void; redirect(authorizeUrl: string): void },
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Deft',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const state = randomBytes(32).toString('base64url');
    this.hooks.started(state);
    return state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const client = (await this.read()).client;
    // A registration made for another redirect (the callback port was taken) cannot finish a new sign-in.
    if (client && 'redirect_uris' in client && Array.isArray(client.redirect_uris) && !client.redirect_uris.includes(this.redirectUrl)) return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.write({ ...(await this.read()), client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.read()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.write({ ...(await this.read()), tokens });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    // The page opens in the user's browser from a link: only a web address may become one.
    if (authorizationUrl.protocol !== 'https:' && authorizationUrl.protocol !== 'http:')
      throw new Error(`The server's sign-in page is not a web address (${authorizationUrl.protocol}).`);
    this.hooks.redirect(authorizationUrl.href);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No sign-in is in progress for this server.');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'discovery') {
      if (scope === 'verifier') this.verifier = undefined;
      return;
    }
    const stored = await this.read();
    if (scope === 'all') return this.write({ url: this.url });
    if (scope === 'client') delete stored.client;
    if (scope === 'tokens') delete stored.tokens;
    await this.write(stored);
  }

  private async read(): Promise<Stored> {
    try {
      const raw = await this.secrets.get(secretKey(this.name));
      const stored = raw ? (JSON.parse(raw) as Stored) : null;
      // What was stored for another URL (the definition changed) is not presented to this one.
      return stored && stored.url === this.url ? stored : { url: this.url };
    } catch {
      return { url: this.url };
    }
  }

  private async write(stored: Stored): Promise<void> {
    await this.secrets.set(secretKey(this.name), JSON.stringify({ ...stored, url: this.url }));
  }
}
