import { connect } from "node:net";

/**
 * Bytes written to a server's port as they are (a request no client library would send: a body
 * cut short, a form without its boundary), resolving with what came back. A whole JSON answer
 * ends the wait; `hangUpAfterMs` makes the client go away that long after writing.
 */
export function rawHttp(port: number, bytes: Buffer | string, hangUpAfterMs?: number): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      // A whole JSON answer (its body is the last thing on the wire) is all that is awaited.
      if (/\r\n\r\n\{[\s\S]*\}$/.test(answer)) socket.destroy();
    });
    socket.on("error", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.write(bytes);
    if (hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), hangUpAfterMs);
  });
}
