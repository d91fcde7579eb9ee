package dev.punctual.bench.compare.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The peers' connections: a HikariCP pool per process, and one-off scripts (schemas). */
final class Jdbc {
    private Jdbc() {}

    /**
     * A fixed-size pool (Hikari's default keeps {@code size} connections open), sized by the caller: a peer's
     * execution threads plus its own housekeeping.
     */
    static HikariDataSource pool(String url, String user, int size, String name) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPassword("");
        c.setMaximumPoolSize(size);
        c.setPoolName(name);
        return new HikariDataSource(c);
    }

    /** Runs a script of several statements (pgjdbc splits it) in autocommit mode. */
    static void execute(String url, String user, String script) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, "");
                Statement s = c.createStatement()) {
            s.execute(script);
        }
    }
}
