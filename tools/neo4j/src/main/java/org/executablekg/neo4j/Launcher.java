package org.executablekg.neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;

/**
 * Starts an embedded Neo4j 5 Community database with the Bolt connector, for
 * local graph builds and the Neo4j tests of engine/graph.
 *
 * <p>Auth is disabled and Bolt listens on 127.0.0.1 only: this is a developer
 * and CI database, not a server. The JVM's shutdown hook stops the database
 * cleanly on SIGTERM/SIGINT, so the store is never left needing recovery.
 *
 * <pre>
 * java -cp 'target/execkg-neo4j.jar:target/lib/*' org.executablekg.neo4j.Launcher \
 *      --data DIR [--host 127.0.0.1] [--port 7687] [--pagecache 128m]
 * </pre>
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 7687;
        String data = null;
        String pagecache = "128m";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--host" -> host = value(args, ++i, a);
                case "--port" -> port = Integer.parseInt(value(args, ++i, a));
                case "--data" -> data = value(args, ++i, a);
                case "--pagecache" -> pagecache = value(args, ++i, a);
                case "-h", "--help" -> {
                    usage();
                    return;
                }
                default -> fail("unknown argument " + a);
            }
        }
        if (data == null) {
            fail("--data DIR is required (the database directory)");
        }
        Path home = Path.of(data).toAbsolutePath();
        Files.createDirectories(home);

        long t0 = System.nanoTime();
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                // The launcher offers Bolt only; no browser, no extra ports.
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                // No usage report: the machine may have no network, and a
                // local test database has nothing to report.
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pagecache))
                .setConfig(GraphDatabaseSettings.shutdown_transaction_end_timeout, Duration.ofSeconds(10))
                // The Bolt server otherwise waits 5 s twice on shutdown for
                // connections and worker threads that a local database has
                // long closed; the store itself is closed before that.
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("execkg-neo4j: shutting down");
            dbms.shutdown();
            System.out.println("execkg-neo4j: stopped");
            stopped.countDown();
        }, "execkg-neo4j-shutdown"));

        // Touch the default database so "ready" means queries will succeed.
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        db.executeTransactionally("RETURN 1");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("execkg-neo4j: ready bolt://%s:%d data=%s started_in_ms=%d%n", host, port, home, ms);
        System.out.flush();
        stopped.await();
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            fail(flag + " needs a value");
        }
        return args[i];
    }

    private static void usage() {
        System.out.println("usage: Launcher --data DIR [--host 127.0.0.1] [--port 7687] [--pagecache 128m]");
    }

    private static void fail(String msg) {
        System.err.println("execkg-neo4j: " + msg);
        usage();
        System.exit(2);
    }
}
