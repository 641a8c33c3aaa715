import { SMTPServer } from 'smtp-server';
import { findFreePort } from '../../../app/embedded/index.ts';

/** A local SMTP server that keeps every message it is sent (smtp-server), for tests of emails. */

export interface ReceivedMail {
  to: string[];
  /** The message as sent, quoted-printable soft line breaks and escapes undone. */
  raw: string;
}

const unquote = (text: string) =>
  text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** The messages to `address` whose raw text matches `pattern`, once at least `count` arrived. */
  waitFor(
    address: string,
    pattern: RegExp,
    count?: number,
    timeoutMs?: number,
  ): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: unquote(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  const port = await findFreePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const matching = (address: string, pattern: RegExp) =>
    received.filter((m) => m.to.includes(address) && pattern.test(m.raw));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitFor(address, pattern, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (matching(address, pattern).length < count) {
        if (Date.now() > deadline)
          throw new Error(
            `no email to ${address} matching ${pattern} (${received.length} received)`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
      return matching(address, pattern);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
