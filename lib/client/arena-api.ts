import { ClientError, EXIT } from "./exit-codes";
import { CLIENT_USER_AGENT } from "./versions";

interface ErrorBody {
  error?: { code?: string; message?: string };
}

/** What to do about each refusal, after the arena's own message. */
const HINTS: Record<string, string> = {
  unauthorized: "check SPECULATORARENA_TOKEN: it must be the token the operators gave you",
  forbidden: "this token's account may not do that",
  budget_exhausted: "see what is left with `budget`; a void evaluation is refunded",
  rate_limited: "wait a minute before trying again",
  not_found: "check the id: `submit` prints it",
  invalid_request: "fix the field it names",
};

/** The arena's public API, as curl and the submit page speak it; every failure becomes a ClientError. */
export class ArenaApi {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async get<T>(path: string): Promise<T> {
    return this.send<T>("GET", path);
  }

  async post<T>(path: string, body?: unknown): Promise<T> {
    return this.send<T>("POST", path, body);
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", "user-agent": CLIENT_USER_AGENT };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ClientError(
        EXIT.unreachable,
        `cannot reach the arena at ${this.baseUrl} (${cause?.code ?? cause?.message ?? String(error)}): is SPECULATORARENA_URL right?`,
      );
    }
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      // not JSON: a proxy's page, say
    }
    if (response.ok) return json as T;
    const error = (json as ErrorBody | null)?.error;
    const code = error?.code ?? `HTTP ${response.status}`;
    const message = error?.message ?? (response.statusText || text.slice(0, 200));
    if (response.status >= 500) {
      throw new ClientError(
        EXIT.unreachable,
        `the arena failed on its side (${response.status} ${code}: ${message}); nothing was charged, try again later`,
      );
    }
    const hint = error?.code ? HINTS[error.code] : undefined;
    throw new ClientError(
      EXIT.refused,
      `the arena refused the request (${response.status} ${code}): ${message}${hint ? `; ${hint}` : ""}`,
    );
  }
}
