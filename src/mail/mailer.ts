import type { Transporter } from 'nodemailer';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends the dashboard's mail (invitations). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** The default: mail is kept in the mail_outbox table, for an operator or another system to deliver. */
class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async send(mail: Mail): Promise<void> {
    await this.db('mail_outbox').insert({
      to_address: mail.to,
      subject: mail.subject,
      body: mail.text,
      created_at: this.clock.now(),
    });
  }
}

/** MAIL_TRANSPORT=smtp://user:pass@host:587 (or smtps://…): mail goes out through that server. */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    // Loaded only where mail goes out through SMTP: the outbox needs none of its 40 modules.
    const nodemailer = require('nodemailer') as typeof import('nodemailer');
    this.transport = nodemailer.createTransport(url);
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }
}

export function createMailer(input: { transport: string | undefined; from: string; db: Db; clock: Clock }): Mailer {
  if (!input.transport) return new OutboxMailer(input.db, input.clock);
  if (!/^smtps?:\/\//.test(input.transport))
    throw new Error(`MAIL_TRANSPORT must be an smtp:// or smtps:// URL, got "${input.transport}"`);
  return new SmtpMailer(input.transport, input.from);
}
