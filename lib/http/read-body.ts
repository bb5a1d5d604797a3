import { AppError } from "./app-error";
import { assertSafeStrings } from "./unsafe-strings";

function tooLarge(maxBytes: number): AppError {
  return new AppError({
    code: "payload_too_large",
    message: `body: larger than ${maxBytes.toLocaleString("en")} bytes`,
  });
}

/** Refuses a body whose declared Content-Length is over the limit, before a byte of it is read. */
export function assertDeclaredLength(request: Request, maxBytes: number): void {
  const declared = request.headers.get("content-length");
  if (declared === null) return;
  const length = Number(declared.trim());
  if (!Number.isFinite(length) || length < 0) {
    throw new AppError({ code: "invalid_request", message: "content-length: not a byte count" });
  }
  if (length > maxBytes) throw tooLarge(maxBytes);
}

/**
 * Reads at most `maxBytes` of the body as it streams (the declared length is checked first, and a chunked body
 * without one is cut off at the limit, its stream cancelled), so nothing larger is ever held or parsed.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  assertDeclaredLength(request, maxBytes);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        throw new AppError({ code: "invalid_request", message: "body: the upload broke off before its end" });
      }
      const { value, done } = next;
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON body read within `maxBytes`, as UTF-8, with every string checked (no NUL, no lone surrogate): each
 * problem a 400 naming it, a body too large a 413.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyBytes(request, maxBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError({ code: "invalid_request", message: "body: not valid UTF-8" });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError({ code: "invalid_request", message: "body: not valid JSON" });
  }
  assertSafeStrings(value);
  return value;
}
