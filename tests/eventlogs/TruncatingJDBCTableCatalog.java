// A JDBC catalog whose tables can be truncated, for the tests of the V2 `TruncateTable` command
// (tests/eventlogs/eventlog_jdbc_job.py): Spark's own JDBCTableCatalog, whose tables are loaded as
// they are and answer `TRUNCATE TABLE` by running it in the database. Spark's JDBC tables do not
// support truncation, and no other V2 catalog runs on every Spark line the tests run (Iceberg has
// no Spark 4 release here). Compiled by the test against the pyspark jars of the line it runs.

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TruncatableTable;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

public class TruncatingJDBCTableCatalog extends JDBCTableCatalog {
    private String url;
    private String driver;
    private String user;

    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        super.initialize(name, options);
        url = options.get("url");
        driver = options.get("driver");
        user = options.get("user");
    }

    @Override
    public Table loadTable(Identifier ident) {
        return new Truncatable(super.loadTable(ident), ident);
    }

    private final class Truncatable implements SupportsRead, SupportsWrite, TruncatableTable {
        private final Table table;
        private final Identifier ident;

        Truncatable(Table table, Identifier ident) {
            this.table = table;
            this.ident = ident;
        }

        @Override
        public String name() {
            return table.name();
        }

        @Override
        @SuppressWarnings("deprecation")
        public StructType schema() {
            return table.schema();
        }

        @Override
        public Set<TableCapability> capabilities() {
            return table.capabilities();
        }

        @Override
        public Map<String, String> properties() {
            return table.properties();
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            return ((SupportsRead) table).newScanBuilder(options);
        }

        @Override
        public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
            return ((SupportsWrite) table).newWriteBuilder(info);
        }

        @Override
        public boolean truncateTable() {
            String name = String.join(".", ident.namespace()) + "." + ident.name();
            Properties properties = new Properties();
            properties.setProperty("user", user);
            try {
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                Driver jdbc = (Driver) Class.forName(driver, true, loader)
                    .getDeclaredConstructor().newInstance();
                try (Connection connection = jdbc.connect(url, properties);
                     Statement statement = connection.createStatement()) {
                    statement.executeUpdate("TRUNCATE TABLE " + name);
                }
                return true;
            } catch (SQLException | ReflectiveOperationException e) {
                throw new RuntimeException(e);
            }
        }

        @Override
        public String toString() {
            return table.toString();  // JDBCTable(public.t,StructType(...),...), as Spark's
        }
    }
}
