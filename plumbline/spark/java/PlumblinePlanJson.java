public class PlumblinePlanJson {
    // what a field's value needs from the Python decoder (`plan.parse_compact`)
    private static final int OMIT = -1, PLAIN = 0, TREE = 1, TREES = 2, CATALYST = 3, EXPR_ID = 4, REFS = 5;
    private final java.util.HashMap names = new java.util.HashMap();
    private final java.util.IdentityHashMap dataTypes = new java.util.IdentityHashMap();
    private final Class seqClass;
    private final Object reflection;
    private final java.lang.reflect.Method paramNames;
    private final java.lang.reflect.Method parseToJson;
    private final Object jsonMethods;
    private final java.lang.reflect.Method compact;
    private final Object nothing;
    private final java.util.HashMap own = new java.util.HashMap();
    private int plans;
    // expressions already shared, by identity: the same object again is not written again
    private final java.util.IdentityHashMap sharedObjects = new java.util.IdentityHashMap();
    // what Catalyst wrote for a Scala object or enumeration value (immutable): written once
    private final java.util.IdentityHashMap constants = new java.util.IdentityHashMap();
    private final java.util.HashMap shared = new java.util.HashMap();
    private StringBuilder sharedText;
    // class names and expression-id JVM ids, each written once in the string table
    private final java.util.HashMap strings = new java.util.HashMap();
    private StringBuilder stringText;

    public PlumblinePlanJson() throws Exception {
        ClassLoader loader = org.apache.spark.sql.catalyst.trees.TreeNode.class.getClassLoader();
        String version = scala.util.Properties.versionNumberString();
        seqClass = Class.forName(version.startsWith("2.12") ? "scala.collection.Seq" : "scala.collection.immutable.Seq", false, loader);
        Class reflectionClass = Class.forName("org.apache.spark.sql.catalyst.ScalaReflection$", true, loader);
        reflection = reflectionClass.getField("MODULE$").get(null);
        paramNames = reflectionClass.getMethod("getConstructorParameterNames", new Class[] {Class.class});
        Class jvalue = Class.forName(version.startsWith("2.12") ? "org.json4s.JsonAST$JValue" : "org.json4s.JValue", false, loader);
        parseToJson = org.apache.spark.sql.catalyst.trees.TreeNode.class.getDeclaredMethod("parseToJson", new Class[] {Object.class});
        parseToJson.setAccessible(true);
        Class methods = Class.forName("org.json4s.jackson.JsonMethods$", true, loader);
        jsonMethods = methods.getField("MODULE$").get(null);
        compact = methods.getMethod("compact", new Class[] {jvalue});
        Class nothingClass = Class.forName(version.startsWith("2.12") ? "org.json4s.JsonAST$JNothing$" : "org.json4s.JNothing$", true, loader);
        nothing = nothingClass.getField("MODULE$").get(null);
    }

    /** The plan as `[strings, shared trees, plan tree]` (the format is `plan.parse_compact`'s). */
    public synchronized String compactJson(org.apache.spark.sql.catalyst.trees.TreeNode root) throws Exception {
        plans = 0;
        sharedText = new StringBuilder(1 << 14);
        stringText = new StringBuilder(1 << 10);
        try {
            StringBuilder plan = new StringBuilder(1 << 16);
            tree(root, plan);
            StringBuilder out = new StringBuilder(stringText.length() + sharedText.length() + plan.length() + 8);
            out.append("[[").append(stringText).append("],[").append(sharedText).append("],").append(plan).append(']');
            return out.toString();
        } finally {
            sharedText = null;
            stringText = null;
            shared.clear();
            sharedObjects.clear();
            strings.clear();
        }
    }

    private int intern(String text) {
        Integer index = (Integer) strings.get(text);
        if (index == null) {
            index = Integer.valueOf(strings.size());
            strings.put(text, index);
            if (index.intValue() > 0) stringText.append(',');
            string(text, stringText);
        }
        return index.intValue();
    }

    private String[] names(Class cls) throws Exception {
        String[] found = (String[]) names.get(cls);
        if (found == null) {
            scala.collection.Seq seq = (scala.collection.Seq) paramNames.invoke(reflection, new Object[] {cls});
            found = new String[seq.length()];
            scala.collection.Iterator it = seq.iterator();
            for (int i = 0; it.hasNext(); i++) found[i] = (String) it.next();
            names.put(cls, found);
        }
        return found;
    }

    private void tree(org.apache.spark.sql.catalyst.trees.TreeNode root, StringBuilder out) throws Exception {
        out.append('[');
        node(root, out, true);
        out.append(']');
    }

    private void node(org.apache.spark.sql.catalyst.trees.TreeNode node, StringBuilder out, boolean first) throws Exception {
        if (!first) out.append(',');
        if (node instanceof org.apache.spark.sql.catalyst.expressions.Expression) {
            Integer known = (Integer) sharedObjects.get(node);
            if (known != null) {
                out.append(-1 - known.intValue());
                return;
            }
            int plansBefore = plans;
            StringBuilder own = new StringBuilder(128);
            own.append('[');
            subtree(node, own);
            own.append(']');
            if (plans != plansBefore) {  // a subquery's plan inside: written in place, never shared
                out.append(own, 1, own.length() - 1);
                return;
            }
            String text = own.toString();
            Integer index = (Integer) shared.get(text);
            if (index == null) {
                index = Integer.valueOf(shared.size());
                shared.put(text, index);
                if (index.intValue() > 0) sharedText.append(',');
                sharedText.append(text);
            }
            sharedObjects.put(node, index);
            out.append(-1 - index.intValue());
            return;
        }
        plans++;
        subtree(node, out);
    }

    private void subtree(org.apache.spark.sql.catalyst.trees.TreeNode node, StringBuilder out) throws Exception {
        if (node instanceof org.apache.spark.sql.catalyst.expressions.PlanExpression) plans++;
        scala.collection.Seq children = node.children();
        fields(node, children, out);
        scala.collection.Iterator it = children.iterator();
        while (it.hasNext()) node((org.apache.spark.sql.catalyst.trees.TreeNode) it.next(), out, false);
    }

    /** `[class, number of children, {plain fields}]`, and `{key: [kind, value]}` after them when
     *  a field needs decoding (a tree, trees, Catalyst's own JSON, an expression id). */
    private void fields(org.apache.spark.sql.catalyst.trees.TreeNode node, scala.collection.Seq children, StringBuilder out) throws Exception {
        out.append('[').append(intern(node.getClass().getName())).append(',').append(children.length()).append(",{");
        StringBuilder special = null;
        if (ownFields(node.getClass())) {
            scala.collection.Iterator fields = node.jsonFields().iterator();
            boolean any = false;
            while (fields.hasNext()) {
                scala.Tuple2 field = (scala.Tuple2) fields.next();
                if (field._2() == nothing) continue;
                String text = (String) compact.invoke(jsonMethods, new Object[] {field._2()});
                if (text.startsWith("[")) {
                    if (special == null) special = new StringBuilder(64); else special.append(',');
                    string((String) field._1(), special);
                    special.append(":[").append(CATALYST).append(',').append(text).append(']');
                    continue;
                }
                if (any) out.append(',');
                any = true;
                string((String) field._1(), out);
                out.append(':').append(text);
            }
        } else {
            special = plainFields(node, children, out);
        }
        out.append('}');
        if (special != null) out.append(",{").append(special).append('}');
        out.append(']');
    }

    private boolean ownFields(Class cls) throws Exception {
        Boolean found = (Boolean) own.get(cls);
        if (found == null) {
            found = Boolean.valueOf(cls.getMethod("jsonFields", new Class[0]).getDeclaringClass() != org.apache.spark.sql.catalyst.trees.TreeNode.class);
            own.put(cls, found);
        }
        return found.booleanValue();
    }

    private StringBuilder plainFields(org.apache.spark.sql.catalyst.trees.TreeNode node, scala.collection.Seq children, StringBuilder out) throws Exception {
        String[] keys = names(node.getClass());
        scala.collection.Iterator values = node.productIterator();
        scala.collection.Iterator extra = node.otherCopyArgs().iterator();
        StringBuilder special = null;
        StringBuilder text = new StringBuilder(64);
        boolean any = false;
        int i = 0;
        while (values.hasNext() || extra.hasNext()) {
            Object value = values.hasNext() ? values.next() : extra.next();
            if (i >= keys.length) throw new IllegalStateException("more values than fields: " + node.getClass().getName());
            String key = keys[i++];
            text.setLength(0);
            int kind = field(node, children, value, text);
            if (kind == OMIT) continue;
            if (kind == PLAIN) {
                if (any) out.append(',');
                any = true;
                string(key, out);
                out.append(':').append(text);
            } else {
                if (special == null) special = new StringBuilder(64); else special.append(',');
                string(key, special);
                special.append(":[").append(kind).append(',').append(text).append(']');
            }
        }
        if (i != keys.length) throw new IllegalStateException("fewer values than fields: " + node.getClass().getName());
        return special;
    }

    private int field(org.apache.spark.sql.catalyst.trees.TreeNode node, scala.collection.Seq children, Object value, StringBuilder out) throws Exception {
        if (value instanceof org.apache.spark.sql.catalyst.trees.TreeNode && node.containsChild().contains(value)) {
            out.append(children.indexOf(value));
            return PLAIN;
        }
        if (seqClass.isInstance(value)) {
            scala.collection.Iterator it = ((scala.collection.Seq) value).iterator();
            boolean all = true;
            while (all && it.hasNext()) all = node.containsChild().contains(it.next());
            if (all) {
                out.append('[');
                it = ((scala.collection.Seq) value).iterator();
                for (int i = 0; it.hasNext(); i++) {
                    if (i > 0) out.append(',');
                    out.append(children.indexOf(it.next()));
                }
                out.append(']');
                return PLAIN;
            }
        }
        return value(node, value, out);
    }

    private int value(org.apache.spark.sql.catalyst.trees.TreeNode node, Object value, StringBuilder out) throws Exception {
        if (value == null) { out.append("null"); return PLAIN; }
        if (value instanceof String) { string((String) value, out); return PLAIN; }
        if (value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            out.append(value.toString());
            return PLAIN;
        }
        if (value instanceof java.util.UUID) { string(value.toString(), out); return PLAIN; }
        if (value instanceof org.apache.spark.sql.types.DataType) {
            String text = (String) dataTypes.get(value);
            if (text == null) {
                text = ((org.apache.spark.sql.types.DataType) value).json();
                dataTypes.put(value, text);
            }
            out.append(text);
            return PLAIN;
        }
        // what Catalyst writes for Metadata, whatever it holds (SPARK-17356)
        if (value instanceof org.apache.spark.sql.types.Metadata) { out.append("{}"); return PLAIN; }
        if (value instanceof org.apache.spark.sql.catalyst.trees.TreeNode) {
            tree((org.apache.spark.sql.catalyst.trees.TreeNode) value, out);
            return TREE;
        }
        if (value instanceof scala.Option) {
            scala.Option option = (scala.Option) value;
            return option.isEmpty() ? OMIT : value(node, option.get(), out);
        }
        if (seqClass.isInstance(value) && !((scala.collection.Seq) value).isEmpty()) {
            scala.collection.Iterator it = ((scala.collection.Seq) value).iterator();
            boolean trees = true;
            while (trees && it.hasNext()) trees = it.next() instanceof org.apache.spark.sql.catalyst.trees.TreeNode;
            if (trees) {
                // trees that are each one shared expression (a projection list) as their references
                int mark = out.length();
                boolean refs = true;
                out.append('[');
                it = ((scala.collection.Seq) value).iterator();
                for (int i = 0; it.hasNext(); i++) {
                    if (i > 0) out.append(',');
                    int start = out.length();
                    node((org.apache.spark.sql.catalyst.trees.TreeNode) it.next(), out, true);
                    if (refs) refs = out.charAt(start) == '-' && out.indexOf(",", start) < 0;
                    if (!refs) break;
                }
                if (refs) {
                    out.append(']');
                    return REFS;
                }
                out.setLength(mark);
                out.append('[');
                it = ((scala.collection.Seq) value).iterator();
                for (int i = 0; it.hasNext(); i++) {
                    if (i > 0) out.append(',');
                    tree((org.apache.spark.sql.catalyst.trees.TreeNode) it.next(), out);
                }
                out.append(']');
                return TREES;
            }
        }
        if (value instanceof org.apache.spark.sql.catalyst.expressions.ExprId) {
            String[] keys = names(value.getClass());
            scala.Product id = (scala.Product) value;
            if (keys.length == 2 && "id".equals(keys[0]) && "jvmId".equals(keys[1]) && id.productArity() == 2) {
                // [class, id, JVM id]: the decoder makes {"product-class": ..., "id": ..., "jvmId": ...}
                out.append('[').append(intern(value.getClass().getName())).append(',');
                out.append(id.productElement(0).toString()).append(',');
                out.append(intern(id.productElement(1).toString())).append(']');
                return EXPR_ID;
            }
            scala.collection.Iterator it = id.productIterator();
            out.append("{\"product-class\":");
            string(value.getClass().getName(), out);
            StringBuilder one = new StringBuilder(48);
            for (int i = 0; it.hasNext(); i++) {
                one.setLength(0);
                if (value(node, it.next(), one) == OMIT) continue;
                out.append(',');
                string(keys[i], out);
                out.append(':').append(one);
            }
            out.append('}');
            return PLAIN;
        }
        boolean constant = value instanceof scala.Enumeration.Value || value.getClass().getName().endsWith("$");
        String text = constant ? (String) constants.get(value) : null;
        if (text == null) {
            Object json = parseToJson.invoke(node, new Object[] {value});
            text = json == nothing ? "" : (String) compact.invoke(jsonMethods, new Object[] {json});
            if (constant) constants.put(value, text);
        }
        if (text.length() == 0) return OMIT;
        out.append(text);
        // Catalyst's JSON of a list may hold trees in toJSON()'s form: the decoder converts it
        return text.charAt(0) == '[' ? CATALYST : PLAIN;
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        String hex = Integer.toHexString(c);
                        out.append("\\u");
                        for (int k = hex.length(); k < 4; k++) out.append('0');
                        out.append(hex);
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
