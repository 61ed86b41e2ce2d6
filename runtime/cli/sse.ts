/** The messages of a `text/event-stream` body (the WHATWG event-stream format, as the server writes it). */
export async function* sseMessages(response: Response): AsyncGenerator<{ id: string; event: string; data: string }> {
  if (response.body === null) return;
  const decoder = new TextDecoder();
  let buffer = "";
  let message = { id: "", event: "message", data: [] as string[] };
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (message.data.length > 0 || message.event !== "message") yield { id: message.id, event: message.event, data: message.data.join("\n") };
        message = { id: message.id, event: "message", data: [] };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (name === "id") message.id = value;
      else if (name === "event") message.event = value;
      else if (name === "data") message.data.push(value);
    }
  }
}
