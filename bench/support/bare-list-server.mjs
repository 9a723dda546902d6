#!/usr/bin/env node
// The machine's ceiling for bench/chat-list.bench.mjs: the smallest server that can answer a chat list page —
// node:http and one pooled `pg` statement per request (the page-0 SQL of a staff member's contacts, the same
// columns, index and JSON shape as the app's answer), no framework, no auth, no validation, no ORM. Whatever this
// answers at p99 under the bench's load is the best any Node implementation of the list could do on this machine.
//
//   DATABASE_URL=postgres://… PORT=… POOL_MAX=20 node bench/support/bare-list-server.mjs
//   GET /<tenant id>?size=20  → { content, page, size, totalElements, totalPages } (totalElements from one count
//                               at start, as the app's count cache would give it)
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 20) });
const PAGE_SQL = `SELECT id, corp_id, external_user_id, open_id, union_id, work_chat_user_id, name, avatar_url, type, gender, customer_corp_name,
                         remark, description, remark_company, mobile, tags, state, state_at, add_way, added_at, ai_enabled,
                         created_at, updated_at, last_message_at
                  FROM chat_external_contact
                  WHERE tenant_id = $1 AND work_chat_user_id = $2 AND NOT sandbox
                  ORDER BY created_at DESC NULLS LAST, id LIMIT $3`;
const totals = new Map(
  (await pool.query(`SELECT tenant_id, count(*)::int AS total FROM chat_external_contact WHERE work_chat_user_id = 'staff00' AND NOT sandbox GROUP BY tenant_id`)).rows.map(
    (row) => [row.tenant_id, row.total],
  ),
);

const server = createServer(async (request, response) => {
  try {
    const url = new URL(request.url, 'http://bench');
    const tenantId = url.pathname.slice(1);
    const size = Number(url.searchParams.get('size') ?? 20);
    const { rows } = await pool.query(PAGE_SQL, [tenantId, 'staff00', size]);
    const totalElements = totals.get(tenantId) ?? 0;
    const body = JSON.stringify({ content: rows, page: 0, size, totalElements, totalPages: Math.ceil(totalElements / size) });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  } catch (error) {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(String(error));
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
