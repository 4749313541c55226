import { once } from "node:events";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { BSON, type Document } from "bson";
import { startOfflineServer, type RunningOfflineServer } from "../src";

// Frames no driver sends, written byte by byte as an attacker would: the stand-in's own robustness.
// mongod refuses each of them too (closing the connection or answering ok: 0), and goes on serving.

/** The frame of issue 13: an OP_MSG whose document sequence declares a size of -1. */
const ISSUE_FRAME = Buffer.from(
  "3a0000000100000000000000dd07000000000000001e0000001070696e67000100000002246462000600000061646d696e000001ffffffff7800",
  "hex",
);

const MAX_MESSAGE_SIZE = 48_000_000;

const OP_MSG = 2013;

/** An OP_MSG of `ping` to admin, as a driver sends it: header, flags 0, one body section (kind 0). */
function ping(requestId = 1): Buffer {
  const sections = Buffer.concat([Buffer.alloc(5), BSON.serialize({ ping: 1, $db: "admin" })]);
  return Buffer.concat([int32(16 + sections.length), int32(requestId), int32(0), int32(OP_MSG), sections]);
}

/** A ping whose body section is followed by a kind-1 section with the given size field and bytes. */
function pingWithSequence(size: number, rest: Buffer = Buffer.from("docs\0", "latin1")): Buffer {
  const body = BSON.serialize({ ping: 1, $db: "admin" });
  const sizeField = Buffer.alloc(4);
  sizeField.writeInt32LE(size);
  const sections = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), body, Buffer.from([1]), sizeField, rest]);
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + sections.length, 0);
  header.writeInt32LE(7, 4);
  header.writeInt32LE(2013, 12);
  return Buffer.concat([header, sections]);
}

type Outcome = { kind: "closed" } | { kind: "reply"; body: Document };

/** Sends `bytes` on a new connection and waits for the first reply or for the server to close it. */
async function exchange(port: number, ...chunks: Buffer[]): Promise<Outcome> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  try {
    const outcome = firstReplyOrClose(socket);
    for (const chunk of chunks) socket.write(chunk);
    return await outcome;
  } finally {
    socket.destroy();
  }
}

function firstReplyOrClose(socket: net.Socket): Promise<Outcome> {
  return repliesOrClose(socket, 1).then((replies) => (replies[0] ? { kind: "reply", body: replies[0].body } : { kind: "closed" }));
}

interface Reply {
  responseTo: number;
  body: Document;
}

/** The first `count` OP_MSG replies on `socket`, cut out of its chunks by their length fields; fewer if the server closes it. */
function repliesOrClose(socket: net.Socket, count: number): Promise<Reply[]> {
  return new Promise((resolve) => {
    const replies: Reply[] = [];
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        // header(16) flags(4) kind(1) body
        replies.push({ responseTo: pending.readInt32LE(8), body: BSON.deserialize(pending.subarray(21, length)) });
        pending = pending.subarray(length);
      }
      if (replies.length >= count) resolve(replies);
    });
    socket.on("close", () => resolve(replies));
    socket.on("error", () => resolve(replies));
  });
}

/** What mongod does with a message it cannot parse: close the connection, or answer an error. */
function expectRefused(outcome: Outcome): void {
  if (outcome.kind === "reply") expect(outcome.body).toMatchObject({ ok: 0 });
  else expect(outcome).toEqual({ kind: "closed" });
}

let server: RunningOfflineServer;
beforeAll(async () => void (server = await startOfflineServer()));
afterAll(() => server.stop());

describe("a malformed OP_MSG", () => {
  it("of issue 13 (a document sequence of size -1) is refused, and the server goes on answering", async () => {
    expectRefused(await exchange(server.port, ISSUE_FRAME));
    expect(await exchange(server.port, ping())).toEqual({ kind: "reply", body: { ok: 1 } });
  });

  it.each([
    ["0", 0],
    ["4, with no room for its id", 4],
    ["past the end of the message", 1_000],
    ["smaller than the id it holds", 5],
  ])("with a document sequence size of %s is refused, and the server goes on answering", async (_case, size) => {
    expectRefused(await exchange(server.port, pingWithSequence(size)));
    expect(await exchange(server.port, ping())).toEqual({ kind: "reply", body: { ok: 1 } });
  });

  it("with a document that reaches past the end of its sequence is refused", async () => {
    const document = BSON.serialize({ a: 1 });
    // The sequence's size covers its id and only half of the document.
    expectRefused(await exchange(server.port, pingWithSequence(4 + 5 + 4, Buffer.concat([Buffer.from("docs\0", "latin1"), document]))));
  });

  it("with three document sequences is refused, as mongod allows two", async () => {
    const sequence = (id: string) => Buffer.concat([Buffer.from([1]), int32(4 + id.length + 1), Buffer.from(`${id}\0`, "latin1")]);
    const body = BSON.serialize({ ping: 1, $db: "admin" });
    const sections = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), body, sequence("a"), sequence("b"), sequence("c")]);
    const header = Buffer.concat([int32(16 + sections.length), int32(9), int32(0), int32(2013)]);
    expectRefused(await exchange(server.port, Buffer.concat([header, sections])));
  });
});

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32LE(value);
  return buffer;
}

describe("a message's declared length", () => {
  it("over 48,000,000 bytes closes the connection before any of the message is read", async () => {
    expect(await exchange(server.port, int32(MAX_MESSAGE_SIZE + 1))).toEqual({ kind: "closed" });
  });

  it("under the 16 bytes of a header closes the connection", async () => {
    expect(await exchange(server.port, int32(15))).toEqual({ kind: "closed" });
  });

  it("of nearly 48,000,000 bytes is read in full, however many chunks it comes in", async () => {
    // As a driver sends a large insert: three documents of 15.9 MB in one document sequence.
    const documents = [1, 2, 3].map((n) => BSON.serialize({ _id: n, padding: "x".repeat(15_900_000) }));
    const body = BSON.serialize({ insert: "large", $db: "wire_test" });
    const sequence = Buffer.concat([
      Buffer.from([1]),
      int32(4 + "documents\0".length + 3 * documents[0]!.length),
      Buffer.from("documents\0", "latin1"),
      ...documents,
    ]);
    const sections = Buffer.concat([Buffer.alloc(5), body, sequence]);
    const message = Buffer.concat([int32(16 + sections.length), int32(3), int32(0), int32(2013), sections]);
    expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_SIZE);
    const chunks = Array.from({ length: Math.ceil(message.length / 65_536) }, (_, index) =>
      message.subarray(index * 65_536, (index + 1) * 65_536),
    );
    expect(await exchange(server.port, ...chunks)).toEqual({ kind: "reply", body: { n: 3, ok: 1 } });
  });
});

describe("a stream of messages", () => {
  it("is answered message by message however it is cut into chunks, the length field included", async () => {
    const stream = Buffer.concat([ping(1), ping(2), ping(3)]);
    for (const cut of [1, 2, 3, 5, 17, stream.length - 1]) {
      const socket = net.connect(server.port, "127.0.0.1");
      await once(socket, "connect");
      const replies = repliesOrClose(socket, 3);
      socket.write(stream.subarray(0, cut));
      await sleep(5);
      socket.write(stream.subarray(cut));
      expect((await replies).map((reply) => reply.responseTo)).toEqual([1, 2, 3]);
      socket.destroy();
    }
  });
});

describe("maxIncomingConnections", () => {
  const LIMIT = 2;
  let capped: RunningOfflineServer;
  let port: number;
  beforeAll(async () => {
    capped = await startOfflineServer({ maxIncomingConnections: LIMIT });
    port = capped.port;
  });
  afterAll(() => capped.stop());

  it("closes connections past the limit on arrival, and accepts new ones once others have gone", async () => {
    const held = await Promise.all(Array.from({ length: LIMIT }, () => openConnection(port)));
    expect(await exchange(port, ping())).toEqual({ kind: "closed" });

    held[0]!.end();
    await once(held[0]!, "close");
    expect(await answeredOnceFreed(port)).toEqual({ kind: "reply", body: { ok: 1 } });
    for (const socket of held) socket.destroy();
  });
});

/** A connection the server has accepted and answered a ping on. */
async function openConnection(port: number): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  const reply = firstReplyOrClose(socket);
  socket.write(ping());
  expect(await reply).toEqual({ kind: "reply", body: { ok: 1 } });
  return socket;
}

/** The server counts a connection as gone when its own end closes, a moment after the client's: retry a few times. */
async function answeredOnceFreed(port: number): Promise<Outcome> {
  let outcome: Outcome = { kind: "closed" };
  for (let attempt = 0; attempt < 50 && outcome.kind === "closed"; attempt += 1) {
    if (attempt > 0) await sleep(20);
    outcome = await exchange(port, ping());
  }
  return outcome;
}

describe("the logger option", () => {
  /** A server whose logger records each line it receives. */
  async function recordedServer(options: { logCommands?: boolean; maxIncomingConnections?: number }) {
    const lines: { level: "warn" | "info"; message: string }[] = [];
    const logger = {
      warn: (message: string) => void lines.push({ level: "warn", message }),
      info: (message: string) => void lines.push({ level: "info", message }),
    };
    return { lines, server: await startOfflineServer({ logger, ...options }) };
  }

  it("receives each command with logCommands, and a connection the server closes, instead of stderr", async () => {
    const { lines, server: logged } = await recordedServer({ logCommands: true });
    try {
      expect(await exchange(logged.port, ping())).toEqual({ kind: "reply", body: { ok: 1 } });
      expect(await exchange(logged.port, pingWithSequence(-1))).toEqual({ kind: "closed" });
      expect(lines).toContainEqual({ level: "info", message: expect.stringMatching(/^conn\d+ admin \{"ping":1,"\$db":"admin"\}$/) });
      expect(lines).toContainEqual({ level: "warn", message: expect.stringMatching(/^conn\d+ closed: .+/) });
    } finally {
      await logged.stop();
    }
  });

  it("receives the refusal of a connection past maxIncomingConnections", async () => {
    const { lines, server: capped } = await recordedServer({ maxIncomingConnections: 1 });
    try {
      const held = await openConnection(capped.port);
      expect(await exchange(capped.port, ping())).toEqual({ kind: "closed" });
      held.destroy();
      expect(lines).toEqual([{ level: "warn", message: "connection refused because too many open connections: 1" }]);
    } finally {
      await capped.stop();
    }
  });
});
