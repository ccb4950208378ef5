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
    // projection chains: collapsed into one `plumbline.ProjectChain` node when `collapse` is on
    // (`plan.parse_compact` documents the node; `lineage._project_chain` walks it)
    public static final String CHAIN_CLASS = "plumbline.ProjectChain";
    private static final int IDENTITY = 1, TRANSFORMATION = 2;  // bits of a base's transformations
    private boolean collapse;
    private final java.util.HashSet attributeNames = new java.util.HashSet();
    private final java.util.HashSet aliasNames = new java.util.HashSet();
    private final java.util.HashSet castNames = new java.util.HashSet();
    private final java.util.HashSet specialNames = new java.util.HashSet();
    private final java.util.HashMap simpleNames = new java.util.HashMap();
    // a class's constructor parameter positions by name
    private final java.util.HashMap fieldIndex = new java.util.HashMap();

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
        return compactJson(root, false);
    }

    /** The expression class names (simple, comma-separated) the Python walk handles: attributes,
     *  aliases and casts (which a collapsed chain follows), and every other kind it handles in a
     *  way of its own (a chain holding one is not collapsed). Other expressions are functions of
     *  their children (a TRANSFORMATION). */
    public synchronized void lineageNames(String attributes, String aliases, String casts, String special) {
        fill(attributeNames, attributes);
        fill(aliasNames, aliases);
        fill(castNames, casts);
        fill(specialNames, special);
    }

    /** `compactJson(root, collapseChains)` itself when it is at most `limit` characters, else
     *  the path of a new temporary file (owner-only, UTF-8) that holds it: py4j writes a longer
     *  answer in two sends, and the second waits ~40 ms for TCP's delayed acknowledgement of the
     *  first. The reader deletes the file; if it cannot be written, the text is returned. */
    public String compactRead(org.apache.spark.sql.catalyst.trees.TreeNode root, boolean collapseChains, int limit) throws Exception {
        String text = compactJson(root, collapseChains);
        if (text.length() <= limit) return text;
        java.nio.file.Path path = null;
        try {
            path = java.nio.file.Files.createTempFile("plumbline-plan-", ".json", new java.nio.file.attribute.FileAttribute[0]);
            java.nio.file.Files.write(path, text.getBytes(java.nio.charset.StandardCharsets.UTF_8), new java.nio.file.OpenOption[0]);
            return path.toString();
        } catch (java.io.IOException e) {
            if (path != null) java.nio.file.Files.deleteIfExists(path);
            return text;
        }
    }

    private static void fill(java.util.HashSet set, String names) {
        set.clear();
        String[] parts = names.split(",");
        for (int i = 0; i < parts.length; i++) if (parts[i].length() > 0) set.add(parts[i]);
    }

    /** As `compactJson(root)`; with `collapseChains`, each chain of projections below a
     *  projection is one `plumbline.ProjectChain` node (its output's lineage, worked out here). */
    public synchronized String compactJson(org.apache.spark.sql.catalyst.trees.TreeNode root, boolean collapseChains) throws Exception {
        collapse = collapseChains && !attributeNames.isEmpty();
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
        if (collapse && node instanceof org.apache.spark.sql.catalyst.plans.logical.Project) {
            Object child = children.apply(0);
            if (child instanceof org.apache.spark.sql.catalyst.plans.logical.Project
                    && chain((org.apache.spark.sql.catalyst.plans.logical.Project) child, out)) return;
        }
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

    // -- projection chains ---------------------------------------------------------------------

    /** Writes `first` and the projections below it, as long as each is one the walk can follow
     *  here, as one `plumbline.ProjectChain` node, then the plan under them. False (nothing
     *  written) when `first` is not such a projection.
     *
     *  The node's fields: `levels` (how many projections it stands for: the JVM path to its child
     *  is that many first children), `output` (`first`'s output attributes), `bases` (the ids
     *  `[id, JVM id]` of the attributes under the chain its output reads) and `lineage`, one entry
     *  per output attribute: null when the chain passes an attribute of the plan under it through
     *  unchanged, else the list of `2 * base index + (0 IDENTITY | 1 TRANSFORMATION)`. */
    private boolean chain(org.apache.spark.sql.catalyst.plans.logical.Project first, StringBuilder out) throws Exception {
        java.util.ArrayList levels = new java.util.ArrayList();
        org.apache.spark.sql.catalyst.plans.logical.LogicalPlan below = first;
        while (below instanceof org.apache.spark.sql.catalyst.plans.logical.Project
                && followable(((org.apache.spark.sql.catalyst.plans.logical.Project) below).projectList())) {
            levels.add(below);
            below = ((org.apache.spark.sql.catalyst.plans.logical.Project) below).child();
        }
        if (levels.isEmpty()) return false;
        // bottom-up, as the Python walk defines them: expression id -> {base id -> bits}
        java.util.HashMap defined = new java.util.HashMap();
        for (int level = levels.size() - 1; level >= 0; level--) {
            scala.collection.Iterator it = ((org.apache.spark.sql.catalyst.plans.logical.Project) levels.get(level)).projectList().iterator();
            while (it.hasNext()) {
                org.apache.spark.sql.catalyst.trees.TreeNode expr = (org.apache.spark.sql.catalyst.trees.TreeNode) it.next();
                if ("AttributeReference".equals(simpleName(expr))) continue;  // passes through
                Object id = exprId(expr);
                if (id == null) continue;
                java.util.HashMap deps = new java.util.HashMap();
                visit(expr, IDENTITY, deps, defined);
                defined.put(id, deps);
            }
        }
        StringBuilder output = new StringBuilder(1024);
        StringBuilder lineage = new StringBuilder(1024);
        java.util.LinkedHashMap bases = new java.util.LinkedHashMap();
        scala.collection.Iterator it = first.projectList().iterator();
        for (int i = 0; it.hasNext(); i++) {
            org.apache.spark.sql.catalyst.expressions.NamedExpression expr = (org.apache.spark.sql.catalyst.expressions.NamedExpression) it.next();
            if (i > 0) { output.append(','); lineage.append(','); }
            node(expr.toAttribute(), output, true);
            Object id = exprId((org.apache.spark.sql.catalyst.trees.TreeNode) expr);
            java.util.HashMap deps = id == null ? null : (java.util.HashMap) defined.get(id);
            if (deps == null) { lineage.append("null"); continue; }
            lineage.append('[');
            boolean any = false;
            java.util.Iterator entries = deps.entrySet().iterator();
            while (entries.hasNext()) {
                java.util.Map.Entry entry = (java.util.Map.Entry) entries.next();
                Integer index = (Integer) bases.get(entry.getKey());
                if (index == null) {
                    index = Integer.valueOf(bases.size());
                    bases.put(entry.getKey(), index);
                }
                int bits = ((Integer) entry.getValue()).intValue();
                for (int mode = 0; mode < 2; mode++) {
                    if ((bits & (mode == 0 ? IDENTITY : TRANSFORMATION)) == 0) continue;
                    if (any) lineage.append(',');
                    any = true;
                    lineage.append(2 * index.intValue() + mode);
                }
            }
            lineage.append(']');
        }
        out.append(",[").append(intern(CHAIN_CLASS)).append(",1,{\"levels\":").append(levels.size());
        out.append(",\"bases\":[");
        java.util.Iterator ids = bases.keySet().iterator();
        for (int i = 0; ids.hasNext(); i++) {
            org.apache.spark.sql.catalyst.expressions.ExprId id = (org.apache.spark.sql.catalyst.expressions.ExprId) ids.next();
            if (i > 0) out.append(',');
            out.append('[').append(id.id()).append(',');
            string(id.jvmId().toString(), out);
            out.append(']');
        }
        out.append("],\"lineage\":[").append(lineage).append("]},{\"output\":[").append(REFS).append(",[");
        out.append(output).append("]]}]");
        node(below, out, false);
        return true;
    }

    /** Whether every expression of a projection list is one the walk here follows exactly as the
     *  Python walk does: attributes, aliases, casts and functions of their children; no subquery
     *  and no kind the Python walk handles in a way of its own. */
    private boolean followable(scala.collection.Seq exprs) throws Exception {
        scala.collection.Iterator it = exprs.iterator();
        while (it.hasNext()) {
            Object expr = it.next();
            if (!(expr instanceof org.apache.spark.sql.catalyst.expressions.NamedExpression)) return false;
            if (!followableTree((org.apache.spark.sql.catalyst.trees.TreeNode) expr)) return false;
        }
        return true;
    }

    private boolean followableTree(org.apache.spark.sql.catalyst.trees.TreeNode expr) throws Exception {
        if (expr instanceof org.apache.spark.sql.catalyst.expressions.PlanExpression) return false;
        String name = simpleName(expr);
        if (specialNames.contains(name)) return false;
        if (attributeNames.contains(name)) {
            Object id = field(expr, "exprId");
            return id == null || id instanceof org.apache.spark.sql.catalyst.expressions.ExprId;
        }
        if (castNames.contains(name) && sameType(expr) == null) return false;
        if (aliasNames.contains(name) || castNames.contains(name)) {
            Object id = field(expr, "exprId");
            if (id != null && !(id instanceof org.apache.spark.sql.catalyst.expressions.ExprId)) return false;
        }
        scala.collection.Iterator it = expr.children().iterator();
        while (it.hasNext()) {
            if (!followableTree((org.apache.spark.sql.catalyst.trees.TreeNode) it.next())) return false;
        }
        return true;
    }

    /** What `lineage.LineageWalker.visit` adds for `expr` seen through `mode`, as base id -> bits. */
    private void visit(org.apache.spark.sql.catalyst.trees.TreeNode expr, int mode, java.util.HashMap deps, java.util.HashMap defined) throws Exception {
        String name = simpleName(expr);
        if (attributeNames.contains(name)) {
            Object id = field(expr, "exprId");
            if (id == null) return;
            java.util.HashMap known = (java.util.HashMap) defined.get(id);
            if (known == null) {
                add(deps, id, mode);
                return;
            }
            java.util.Iterator entries = known.entrySet().iterator();
            while (entries.hasNext()) {
                java.util.Map.Entry entry = (java.util.Map.Entry) entries.next();
                add(deps, entry.getKey(), mode == TRANSFORMATION ? TRANSFORMATION : ((Integer) entry.getValue()).intValue());
            }
            return;
        }
        int inner = TRANSFORMATION;
        if (aliasNames.contains(name)) inner = mode;
        else if (castNames.contains(name) && Boolean.TRUE.equals(sameType(expr))) inner = mode;
        scala.collection.Iterator it = expr.children().iterator();
        while (it.hasNext()) visit((org.apache.spark.sql.catalyst.trees.TreeNode) it.next(), inner, deps, defined);
    }

    private static void add(java.util.HashMap deps, Object id, int bits) {
        Integer known = (Integer) deps.get(id);
        deps.put(id, Integer.valueOf(known == null ? bits : known.intValue() | bits));
    }

    /** A cast of an attribute to the type it has (`lineage._cast`): TRUE or FALSE, or null when
     *  a `dataType` field holds something other than a type (not followed here). */
    private Boolean sameType(org.apache.spark.sql.catalyst.trees.TreeNode cast) throws Exception {
        Object to = field(cast, "dataType");
        if (to != null && !(to instanceof org.apache.spark.sql.types.DataType)) return null;
        scala.collection.Seq children = cast.children();
        if (children.length() != 1) return Boolean.FALSE;
        org.apache.spark.sql.catalyst.trees.TreeNode child = (org.apache.spark.sql.catalyst.trees.TreeNode) children.apply(0);
        if (!attributeNames.contains(simpleName(child))) return Boolean.FALSE;
        Object from = field(child, "dataType");
        if (from != null && !(from instanceof org.apache.spark.sql.types.DataType)) return null;
        if (from == null || to == null) return Boolean.FALSE;
        return Boolean.valueOf(dataTypeJson(from).equals(dataTypeJson(to)));
    }

    private String dataTypeJson(Object type) {
        String text = (String) dataTypes.get(type);
        if (text == null) {
            text = ((org.apache.spark.sql.types.DataType) type).json();
            dataTypes.put(type, text);
        }
        return text;
    }

    /** The node's simple class name as `plan.Node.name` makes it. */
    private String simpleName(Object node) {
        Class cls = node.getClass();
        String name = (String) simpleNames.get(cls);
        if (name == null) {
            name = cls.getName().substring(cls.getName().lastIndexOf('.') + 1);
            int end = name.length();
            while (end > 0 && name.charAt(end - 1) == '$') end--;
            name = name.substring(0, end);
            simpleNames.put(cls, name);
        }
        return name;
    }

    /** The value of the constructor parameter `key` (an Option's content), or null. */
    private Object field(org.apache.spark.sql.catalyst.trees.TreeNode node, String key) throws Exception {
        Class cls = node.getClass();
        java.util.HashMap positions = (java.util.HashMap) fieldIndex.get(cls);
        if (positions == null) {
            positions = new java.util.HashMap();
            String[] keys = names(cls);
            for (int i = 0; i < keys.length; i++) positions.put(keys[i], Integer.valueOf(i));
            fieldIndex.put(cls, positions);
        }
        Integer index = (Integer) positions.get(key);
        if (index == null) return null;
        int i = index.intValue();
        int arity = node.productArity();
        Object value = i < arity ? node.productElement(i) : node.otherCopyArgs().apply(i - arity);
        if (value instanceof scala.Option) {
            scala.Option option = (scala.Option) value;
            return option.isEmpty() ? null : option.get();
        }
        return value;
    }

    /** The expression id of an attribute or alias (`plan.Node.expr_id`), or null. */
    private Object exprId(org.apache.spark.sql.catalyst.trees.TreeNode node) throws Exception {
        Object id = field(node, "exprId");
        return id instanceof org.apache.spark.sql.catalyst.expressions.ExprId ? id : null;
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
