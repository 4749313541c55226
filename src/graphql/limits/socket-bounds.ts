import { WebSocket } from "ws";

/**
 * WebSocket's own close code for a peer that broke the server's policy: here, one that does not read what it is sent.
 * graphql-ws's client treats it as any close it does not know, and retries with backoff.
 */
export const UNREAD_CLOSE_CODE = 1008;

/** What a socket closed for its unread bytes is told (a close reason holds at most 123 bytes). */
export function unreadReason(maxUnsentBytes: number): string {
  return `Over ${maxUnsentBytes} bytes wait unsent: read what the server sends`;
}

type SendCallback = (error?: Error) => void;

/** A write's callback told it succeeded, as ws tells it (no error), for a frame not written. ws types it as taking one. */
function done(callback: ((error: Error) => void) | undefined): void {
  (callback as SendCallback | undefined)?.();
}
type SendOptions = Parameters<WebSocket["send"]>[1];

/**
 * The WebSocket class the subscriptions' server creates its sockets with (ws's documented `WebSocket` option, a
 * subclass of its own): every frame the server writes (graphql-ws's pongs, acks, errors and values, the project's
 * `next` frames, keep-alive pings, ws's automatic pongs) passes `send`, `ping` or `pong`, and none is written while
 * more than `maxUnsentBytes` wait in the process for a peer that does not read (`bufferedAmount`). Such a socket is
 * closed with UNREAD_CLOSE_CODE: a client that sent pings and never read grew the server by
 * 866 MB in 12 s, every pong held in memory (issue 51). A socket holds at most the bound and one frame more, then
 * ws's close timeout ends it. A frame not written reports success to its writer, as graphql-ws's own wrapper does for
 * a socket that is no longer open: the subscription ends with the socket's close, not with an error of its own.
 */
export function boundedSocketClass(maxUnsentBytes: number): typeof WebSocket {
  const reason = unreadReason(maxUnsentBytes);
  return class BoundedSocket extends WebSocket {
    override send(data: Parameters<WebSocket["send"]>[0], options?: SendOptions | SendCallback, callback?: SendCallback): void {
      if (this.refusesWrite()) {
        (typeof options === "function" ? options : callback)?.();
        return;
      }
      if (typeof options === "function") super.send(data, options);
      else super.send(data, options ?? {}, callback);
    }

    override ping(data?: unknown, mask?: boolean, callback?: (error: Error) => void): void {
      if (this.refusesWrite()) done(callback);
      else super.ping(data, mask, callback);
    }

    // ws counts its automatic pongs until their callback (maxPendingAutoPongs): one not written is done with too.
    override pong(data?: unknown, mask?: boolean, callback?: (error: Error) => void): void {
      if (this.refusesWrite()) done(callback);
      else super.pong(data, mask, callback);
    }

    /** True when this write must not happen: the peer left too much unread, and the socket is closed for it now. */
    private refusesWrite(): boolean {
      if (this.readyState !== WebSocket.OPEN || this.bufferedAmount <= maxUnsentBytes) return false;
      // Still read, so that the peer's close frame, once it reads, ends the socket at once; what it asks meanwhile is
      // answered by nothing, since a closing socket is written no more (graphql-ws's wrapper, SocketFrames.open).
      this.close(UNREAD_CLOSE_CODE, reason);
      return true;
    }
  };
}
