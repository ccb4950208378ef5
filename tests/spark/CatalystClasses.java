import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.lang.reflect.Modifier;

/** Lists the concrete Catalyst classes (logical plans, physical plans, expressions) of some jars.
 * Compiled by Janino in the test's JVM (tests/spark/catalyst_classes.py); each class is loaded
 * without being initialised. */
public class CatalystClasses {
    /** One line per concrete class: kind, tab, class name, tab, jar, tab, the traits (of `traits`,
     * comma-separated) it has. `jars` and `traits` are newline-separated; `prefixes` (newline-
     * separated entry prefixes such as org/apache/spark/) limit which entries are loaded. */
    public String list(String jars, String prefixes, String traits, ClassLoader loader) throws Exception {
        String[] kinds = {"logical", "physical", "expression"};
        Class[] bases = {
            Class.forName("org.apache.spark.sql.catalyst.plans.logical.LogicalPlan", false, loader),
            Class.forName("org.apache.spark.sql.execution.SparkPlan", false, loader),
            Class.forName("org.apache.spark.sql.catalyst.expressions.Expression", false, loader),
        };
        String[] traitNames = traits.split("\n");
        Class[] traitClasses = new Class[traitNames.length];
        for (int i = 0; i < traitNames.length; i++) {
            try {
                traitClasses[i] = Class.forName(traitNames[i], false, loader);
            } catch (Throwable e) {
                traitClasses[i] = null;  // a trait this Spark line does not have
            }
        }
        String[] starts = prefixes.split("\n");
        StringBuilder out = new StringBuilder();
        String[] paths = jars.split("\n");
        for (int p = 0; p < paths.length; p++) {
            JarFile jar = new JarFile(paths[p]);
            try {
                Enumeration entries = jar.entries();
                while (entries.hasMoreElements()) {
                    String entry = ((JarEntry) entries.nextElement()).getName();
                    if (!entry.endsWith(".class") || entry.indexOf("$anon") >= 0 || entry.indexOf("$$") >= 0) continue;
                    boolean wanted = false;
                    for (int s = 0; s < starts.length; s++) if (entry.startsWith(starts[s])) wanted = true;
                    if (!wanted) continue;
                    String name = entry.substring(0, entry.length() - 6).replace('/', '.');
                    Class cls;
                    try {
                        cls = Class.forName(name, false, loader);
                    } catch (Throwable e) {
                        continue;  // needs a library this classpath lacks: it cannot be in a plan
                    }
                    int kind = -1;
                    try {
                        for (int k = 0; k < bases.length; k++) if (bases[k].isAssignableFrom(cls)) kind = k;
                        int mods = cls.getModifiers();
                        if (kind < 0 || cls.isInterface() || Modifier.isAbstract(mods)
                                || cls.isAnonymousClass() || cls.isSynthetic() || cls.isLocalClass()) continue;
                    } catch (Throwable e) {
                        continue;  // its metadata names a library this classpath lacks: never in a plan
                    }
                    for (int k = kind; k == kind; k++) {
                        out.append(kinds[k]).append('\t').append(name).append('\t').append(paths[p]).append('\t');
                        boolean first = true;
                        for (int t = 0; t < traitClasses.length; t++) {
                            if (traitClasses[t] != null && traitClasses[t].isAssignableFrom(cls)) {
                                if (!first) out.append(',');
                                out.append(traitNames[t]);
                                first = false;
                            }
                        }
                        out.append('\n');
                    }
                }
            } finally {
                jar.close();
            }
        }
        return out.toString();
    }
}
