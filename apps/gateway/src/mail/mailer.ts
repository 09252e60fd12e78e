import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, Transporter } from 'nodemailer';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; links in it are printed to the log when the mail goes to a folder. */
  text: string;
}

/** Where a mail went: sent over SMTP, written to a file, or nowhere (no SMTP, no folder). */
export type MailOutcome = { via: 'smtp'; messageId: string } | { via: 'file'; path: string } | { via: 'none' };

const LINK = /https?:\/\/\S+/g;

/**
 * Sends the dashboard's mails with nodemailer: over SMTP (SMTP_URL), or, without it, as `.eml`
 * files in a folder (standalone: DATA_DIR/mail) with their links in the log, so a local try-out can
 * follow a reset link without a mail server. A distributed deployment without SMTP_URL sends
 * nothing and logs a warning per mail (no address, no link: those would leak into shared logs).
 */
@Injectable()
export class Mailer {
  private readonly logger = new Logger(Mailer.name);
  private readonly transport: Transporter;

  constructor(@Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings) {
    const { smtpUrl } = settings.mail;
    this.transport = smtpUrl ? createTransport(smtpUrl) : createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  async send(message: MailMessage): Promise<MailOutcome> {
    const { smtpUrl, from, dir } = this.settings.mail;
    const mail = { from, to: message.to, subject: message.subject, text: message.text };
    if (smtpUrl) {
      const info = (await this.transport.sendMail(mail)) as { messageId: string };
      return { via: 'smtp', messageId: info.messageId };
    }
    if (!dir) {
      this.logger.warn({ subject: message.subject }, 'mail not sent: SMTP_URL is not set');
      return { via: 'none' };
    }
    const info = (await this.transport.sendMail(mail)) as { message: Buffer };
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`);
    // Written under another name, then renamed: whoever reads the folder (a mail client, a test) sees
    // a whole .eml or none, never one still being written.
    const partial = `${path}.partial`;
    await writeFile(partial, info.message, { mode: 0o600 });
    await rename(partial, path);
    this.logger.log({ to: message.to, subject: message.subject, file: path, links: message.text.match(LINK) ?? [] }, 'mail written (no SMTP_URL)');
    return { via: 'file', path };
  }
}
