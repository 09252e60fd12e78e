import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** Every http(s) link in the text. */
  links: string[];
}

/** A real SMTP server in this process (smtp-server), keeping every mail it receives, parsed (mailparser). */
export interface SmtpSink {
  url: string;
  mails: ReceivedMail[];
  /** The mails to one address (with this subject, if given), waiting (up to `ms`) until there are at least `count`. */
  mailsTo(address: string, count?: number, ms?: number, subject?: string): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? '';
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text,
            links: text.match(/https?:\/\/\S+/g) ?? [],
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mailsTo = async (address: string, count = 1, ms = 10_000, subject?: string) => {
    const deadline = Date.now() + ms;
    const mine = () => mails.filter((m) => m.to.includes(address.toLowerCase()) && (subject === undefined || m.subject === subject));
    while (mine().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return mine();
  };
  return { url: `smtp://127.0.0.1:${port}`, mails, mailsTo, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
