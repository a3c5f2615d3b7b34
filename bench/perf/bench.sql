-- uwprof benchmark workload: sqlite3 in memory; inserts, an index,
-- aggregates, a join, sorting, string functions and JSON.
CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
INSERT INTO t(a, b, c) SELECT (i * 7919) % 1000, printf('row-%08d-%s', i, hex(i * 31)), i / 7.0 FROM n;
CREATE INDEX t_a ON t(a);
CREATE TABLE u(a INTEGER PRIMARY KEY, name TEXT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
INSERT INTO u SELECT i, 'name' || i FROM n;
SELECT a, count(*), sum(c), max(b) FROM t GROUP BY a ORDER BY 3 DESC LIMIT 3;
SELECT count(*) FROM t JOIN u USING (a) WHERE u.name LIKE '%7%';
SELECT sum(length(upper(b)) + instr(b, 'A')) FROM t;
SELECT b FROM t ORDER BY substr(b, 14), c DESC LIMIT 2;
SELECT json_group_array(json_object('a', a, 'n', name)) IS NOT NULL FROM u;
UPDATE t SET c = c * 2 WHERE a % 3 = 0;
DELETE FROM t WHERE a % 5 = 0;
SELECT count(*), avg(c) FROM t;
