import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createMailer, SmtpMailer } from '../../src/mail/mailer';

/** A minimal SMTP server on loopback that keeps each message's envelope and data. */
async function smtpServer(): Promise<{
  url: string;
  messages: Array<{ from: string; to: string[]; data: string }>;
  close(): Promise<void>;
}> {
  const messages: Array<{ from: string; to: string[]; data: string }> = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 localhost ESMTP test\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          current = { from: '', to: [], data: '' };
          socket.write('250 OK queued\r\n');
          continue;
        }
        const at = buffer.indexOf('\r\n');
        if (at < 0) return;
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'MAIL') current.from = line;
        if (verb === 'RCPT') current.to.push(line);
        if (verb === 'DATA') inData = true;
        if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write(verb === 'DATA' ? '354 go on\r\n' : '250 OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise((r) => server.close(() => r())) };
}

describe('mailer', () => {
  it('sends through the SMTP server MAIL_TRANSPORT names', async () => {
    const smtp = await smtpServer();
    try {
      const mailer = createMailer({
        transport: smtp.url,
        from: 'Audits <no-reply@example.com>',
        db: null as never,
        clock: null as never,
      });
      assert.ok(mailer instanceof SmtpMailer);
      await mailer.send({
        to: 'invitee@example.com',
        subject: 'You are invited',
        text: 'Accept: http://127.0.0.1/invitations/abc',
      });
      assert.equal(smtp.messages.length, 1);
      assert.match(smtp.messages[0].from, /<no-reply@example\.com>/);
      assert.match(smtp.messages[0].to[0], /<invitee@example\.com>/);
      assert.match(smtp.messages[0].data, /Subject: You are invited/);
      assert.match(smtp.messages[0].data, /invitations\/abc/);
    } finally {
      await smtp.close();
    }
  });

  it('refuses a MAIL_TRANSPORT that is not an SMTP URL', () => {
    assert.throws(
      () => createMailer({ transport: 'sendmail', from: 'x@example.com', db: null as never, clock: null as never }),
      /smtp:\/\//,
    );
  });
});
