/**
 * A `fetch` whose response bodies hold at most `maxBytes`: once more arrive,
 * the connection is closed and reading the body (`text()`, `json()`, its
 * stream) fails with `tooLong(bytes read)`. A body is never buffered here, so
 * memory stays at what the reader keeps. Responses without a body are
 * returned as they are. `base` is the `fetch` it wraps (default the global one,
 * looked up at each call).
 */
export function fetchWithBodyLimit(
  maxBytes: number,
  tooLong: (bytes: number) => Error,
  base?: typeof fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await (base ?? fetch)(input, init);
    if (response.body === null) return response;
    return new Response(limitStream(response.body, maxBytes, tooLong), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function limitStream(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLong: (bytes: number) => Error,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let bytes = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        // Closes the connection: the rest of the body is never downloaded.
        await reader.cancel().catch(() => undefined);
        controller.error(tooLong(bytes));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
