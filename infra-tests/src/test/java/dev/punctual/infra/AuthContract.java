package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Authentication in infra/terraform: every route and the function URL require what {@code var.auth} says, and no
 * configuration opens the API without {@code allow_unauthenticated_api}. The static checks read the parsed HCL;
 * {@link #plans} has Terraform evaluate the rules between variables (offline, see {@link OfflinePlan}). Each
 * check returns the drift it finds, so {@link DriftDetectionTest} can show it fails on a broken copy.
 */
final class AuthContract {
    static final Set<String> MODES = Set.of("jwt", "iam", "none");
    /** What each authenticated mode must require. */
    static final Map<String, String> ROUTE = Map.of("jwt", "JWT", "iam", "AWS_IAM");
    /** A function URL knows AWS_IAM and NONE only; with jwt it must not be open (the module also refuses it). */
    static final Map<String, String> FUNCTION_URL = Map.of("jwt", "AWS_IAM", "iam", "AWS_IAM");

    static final String ACK = "var.allow_unauthenticated_api";
    /**
     * The one route resource that is public in every mode: the dashboard's static files, which a browser loads
     * without an Authorization header. Only {@code GET} under {@code /ui} may be routed by it.
     */
    static final String DASHBOARD = "dashboard";

    private static final Pattern DASHBOARD_KEY = Pattern.compile("GET /ui(/\\{proxy\\+})?");

    private static final Pattern BY_MODE = Pattern.compile("^\\$\\{local\\.(\\w+)\\[var\\.auth]}$");
    private static final Pattern AUTHORIZER_REF =
            Pattern.compile("aws_apigatewayv2_authorizer\\.(\\w+)(\\[[^]]*])?\\.id");
    private static final Pattern LOCAL_REF = Pattern.compile("local\\.(\\w+)");
    private static final Pattern MODE_IN_EXPR = Pattern.compile("PUNCTUAL_AUTH_MODE\\s*=\\s*([^,\\n}]+?)\\s*[,\\n}]");

    private final Terraform tf;

    AuthContract(Terraform tf) {
        this.tf = tf;
    }

    /** Every HTTP API route requires a JWT or a SigV4 signature; NONE only under the acknowledged "none". */
    List<String> routes() {
        List<String> drift = new ArrayList<>();
        Map<String, JsonNode> routes = tf.resources("aws_apigatewayv2_route");
        if (routes.isEmpty()) {
            drift.add("no aws_apigatewayv2_route");
        }
        routes.forEach((name, route) -> {
            String where = "aws_apigatewayv2_route." + name;
            if (name.equals(DASHBOARD)) {
                drift.addAll(dashboard(where, route));
                return;
            }
            drift.addAll(authorization(where, route.path("authorization_type"), ROUTE));
            if (mayBe(route.path("authorization_type"), "JWT")) {
                drift.addAll(authorizer(where, route.path("authorizer_id").asText("")));
            }
        });
        return drift;
    }

    /** The dashboard's routes: NONE, no authorizer, and nothing but GET of its files under /ui. */
    private List<String> dashboard(String where, JsonNode route) {
        List<String> drift = new ArrayList<>();
        if (!"NONE".equals(route.path("authorization_type").asText())) {
            drift.add(where + " authorization_type is " + route.path("authorization_type") + ", expected NONE");
        }
        if (route.has("authorizer_id")) {
            drift.add(where + " has an authorizer_id");
        }
        for (String key : Components.forEachValues(tf, route)) {
            if (!DASHBOARD_KEY.matcher(key).matches()) {
                drift.add(
                        where + " routes " + key + " without authorization: only GET /ui and GET /ui/{proxy+} may be");
            }
        }
        return drift;
    }

    /** The api function URL (when the module has one) is AWS_IAM, or NONE only under the acknowledged "none". */
    List<String> functionUrls() {
        List<String> drift = new ArrayList<>();
        tf.resources("aws_lambda_function_url")
                .forEach((name, url) -> drift.addAll(authorization(
                        "aws_lambda_function_url." + name, url.path("authorization_type"), FUNCTION_URL)));
        return drift;
    }

    /** {@code auth} defaults to jwt and is validated; the acknowledgement defaults to false and says what it opens. */
    List<String> variables() {
        List<String> drift = new ArrayList<>();
        if (!tf.hasVariable("auth")) {
            return List.of("no variable auth");
        }
        JsonNode auth = tf.variables().get("auth");
        expect(drift, "variable auth: type", "${string}", auth.path("type").asText(null));
        expect(drift, "variable auth: default", "jwt", auth.path("default").asText(null));
        boolean validated = false;
        for (JsonNode v : auth.path("validation")) {
            String condition = v.path("condition").asText("");
            validated |=
                    condition.contains("var.auth") && MODES.stream().allMatch(m -> condition.contains("\"" + m + "\""));
        }
        if (!validated) {
            drift.add("variable auth: no validation limiting it to " + new TreeSet<>(MODES));
        }
        if (!tf.hasVariable("allow_unauthenticated_api")) {
            drift.add("no variable allow_unauthenticated_api (the acknowledgement auth = \"none\" needs)");
        } else {
            JsonNode ack = tf.variables().get("allow_unauthenticated_api");
            expect(
                    drift,
                    "variable allow_unauthenticated_api: type",
                    "${bool}",
                    ack.path("type").asText(null));
            expect(
                    drift,
                    "variable allow_unauthenticated_api: default",
                    false,
                    ack.path("default").isBoolean()
                            ? ack.path("default").asBoolean()
                            : ack.path("default").toString());
            String description = ack.path("description").asText("").toLowerCase(Locale.ROOT);
            for (String word : List.of("anyone", "upload", "run", "delete", "local")) {
                if (!description.contains(word)) {
                    drift.add("variable allow_unauthenticated_api: the description must say what it exposes (" + word
                            + ")");
                }
            }
        }
        for (String v : List.of("jwt_issuer", "jwt_audience", "jwt_tenant_claim", "iam_tenant")) {
            if (!tf.hasVariable(v)) {
                drift.add("no variable " + v);
            }
        }
        return drift;
    }

    /**
     * Preconditions exist for the rules between variables: "none" needs the acknowledgement, an issuer needs an
     * audience. (Only their presence can be read from the text; {@link #plans} checks what they do.)
     */
    List<String> guards() {
        List<String> conditions = new ArrayList<>();
        tf.resourcesByType()
                .values()
                .forEach(byName -> byName.values()
                        .forEach(r -> r.path("lifecycle")
                                .forEach(l -> l.path("precondition")
                                        .forEach(p -> conditions.add(
                                                p.path("condition").asText(""))))));
        List<String> drift = new ArrayList<>();
        if (conditions.stream().noneMatch(c -> c.contains("var.auth") && c.contains("\"none\"") && c.contains(ACK))) {
            drift.add("no precondition ties auth = \"none\" to " + ACK);
        }
        if (conditions.stream().noneMatch(c -> c.contains("var.jwt_issuer") && c.contains("var.jwt_audience"))) {
            drift.add("no precondition requires jwt_audience with jwt_issuer");
        }
        return drift;
    }

    /**
     * An example's calls of this module pass only variables the module declares, choose auth explicitly, and
     * acknowledge "none" when they choose it.
     */
    List<String> example(String name, Terraform example) {
        List<String> drift = new ArrayList<>();
        Set<String> meta = Set.of("source", "version", "providers", "count", "for_each", "depends_on");
        example.modules().forEach((call, block) -> {
            if (!block.path("source").asText("").equals("../..")) {
                return;
            }
            String where = "examples/" + name + " module " + call;
            block.fieldNames().forEachRemaining(arg -> {
                if (!meta.contains(arg) && !tf.hasVariable(arg)) {
                    drift.add(where + " passes " + arg + ", which the module does not declare");
                }
            });
            String mode = block.path("auth").asText(null);
            if (mode == null) {
                drift.add(where + " does not choose auth");
            } else if (mode.equals("none")
                    && !block.path("allow_unauthenticated_api").asBoolean(false)) {
                drift.add(where + " chooses auth = \"none\" without allow_unauthenticated_api = true");
            }
        });
        return drift;
    }

    /** The api Lambda's PUNCTUAL_AUTH_MODE is var.auth, wherever the environment takes it from. */
    List<String> apiEnvironment() {
        Terraform.Instance api = Components.lambdaFunction(tf, "api");
        List<String> values = authModes(api.block().path("environment"));
        if (values.isEmpty()) {
            return List.of(api.address() + " does not set PUNCTUAL_AUTH_MODE");
        }
        List<String> drift = new ArrayList<>();
        for (String v : values) {
            if (!v.equals("var.auth")) {
                drift.add(api.address() + " sets PUNCTUAL_AUTH_MODE to " + v + ", not var.auth");
            }
        }
        return drift;
    }

    /** A case for {@link #plans}: variables, and either the text its failure must show or what it must plan. */
    record Case(
            String name,
            Map<String, Object> variables,
            String failure,
            String routes,
            Boolean authorizer,
            String functionUrl,
            Map<String, String> environment)
            implements OfflinePlan.Case {
        static Case fails(String name, Map<String, Object> variables, String failure) {
            return new Case(name, variables, failure, null, null, null, null);
        }

        static Case plans(
                String name,
                Map<String, Object> variables,
                String routes,
                boolean authorizer,
                String functionUrl,
                Map<String, String> environment) {
            return new Case(name, variables, null, routes, authorizer, functionUrl, environment);
        }
    }

    static final Map<String, Object> BASE = Map.of("create_executor_service", false);
    static final String ISSUER = "https://issuer.example.com/";
    static final List<String> AUDIENCE = List.of("client-1");

    static final List<Case> CASES = List.of(
            Case.fails("the defaults (auth = jwt without an issuer)", Map.of(), "jwt_issuer"),
            Case.plans(
                    "jwt",
                    Map.of("jwt_issuer", ISSUER, "jwt_audience", AUDIENCE),
                    "JWT",
                    true,
                    null,
                    Map.of("PUNCTUAL_AUTH_MODE", "jwt")),
            Case.plans(
                    "jwt with a tenant claim",
                    Map.of("jwt_issuer", ISSUER, "jwt_audience", AUDIENCE, "jwt_tenant_claim", "org_id"),
                    "JWT",
                    true,
                    null,
                    Map.of("PUNCTUAL_AUTH_MODE", "jwt", "PUNCTUAL_AUTH_TENANT_CLAIM", "org_id")),
            Case.fails("jwt with an issuer and no audience", Map.of("jwt_issuer", ISSUER), "jwt_audience"),
            Case.fails("jwt with an audience and no issuer", Map.of("jwt_audience", AUDIENCE), "jwt_issuer"),
            Case.fails(
                    "jwt with an http:// issuer",
                    Map.of("jwt_issuer", "http://issuer.example.com/", "jwt_audience", AUDIENCE),
                    "jwt_issuer"),
            Case.fails(
                    "jwt with a function URL",
                    Map.of("jwt_issuer", ISSUER, "jwt_audience", AUDIENCE, "create_api_function_url", true),
                    "function URL"),
            Case.plans(
                    "iam",
                    Map.of("auth", "iam", "create_api_function_url", true),
                    "AWS_IAM",
                    false,
                    "AWS_IAM",
                    Map.of("PUNCTUAL_AUTH_MODE", "iam", "PUNCTUAL_AUTH_IAM_TENANT", "principal")),
            Case.plans(
                    "iam by account",
                    Map.of("auth", "iam", "iam_tenant", "account"),
                    "AWS_IAM",
                    false,
                    null,
                    Map.of("PUNCTUAL_AUTH_MODE", "iam", "PUNCTUAL_AUTH_IAM_TENANT", "account")),
            Case.fails(
                    "iam with an issuer and no audience", Map.of("auth", "iam", "jwt_issuer", ISSUER), "jwt_audience"),
            Case.fails(
                    "none without allow_unauthenticated_api",
                    Map.of("auth", "none", "create_api_function_url", true),
                    "allow_unauthenticated_api"),
            Case.plans(
                    "none with allow_unauthenticated_api",
                    Map.of("auth", "none", "allow_unauthenticated_api", true, "create_api_function_url", true),
                    "NONE",
                    false,
                    "NONE",
                    Map.of("PUNCTUAL_AUTH_MODE", "none")),
            Case.fails("an unknown mode", Map.of("auth", "open"), "auth"),
            Case.fails(
                    "PUNCTUAL_AUTH_MODE in extra_environment",
                    Map.of("auth", "iam", "extra_environment", Map.of("PUNCTUAL_AUTH_MODE", "none")),
                    "PUNCTUAL_AUTH_"));

    /**
     * Plans each of {@link #CASES} on the offline stand-in of the module (in {@code dir}): the failing ones must
     * fail for the reason named, the others must give every route, the authorizer, the function URL and the api
     * Lambda's PUNCTUAL_AUTH_* exactly what the mode calls for. With names, only those cases.
     */
    List<String> plans(Path dir, String... only) throws IOException, InterruptedException {
        OfflinePlan plan = new OfflinePlan(tf, dir);
        Map<String, JsonNode> routes = tf.resources("aws_apigatewayv2_route");
        routes.forEach((name, r) -> {
            if (name.equals(DASHBOARD)) {
                return; // NONE in every mode: checked by routes()
            }
            plan.output("route:" + name, r.path("authorization_type").asText(""));
            String id = r.path("authorizer_id").asText("${null}");
            // The authorizer's id is known only after apply; its name stands in for it.
            plan.output("authorizer_id:" + name, AUTHORIZER_REF.matcher(id).replaceAll("\"authorizer:$1\""));
        });
        tf.resources("aws_apigatewayv2_authorizer")
                .forEach((name, a) -> plan.output(
                        "authorizer_count:" + name,
                        a.has("count") ? a.path("count").asText() : "1"));
        tf.resources("aws_lambda_function_url")
                .forEach((name, u) ->
                        plan.output("url:" + name, u.path("authorization_type").asText("")));
        // What cannot be evaluated offline (names, ARNs) holds no PUNCTUAL_AUTH_*: extra_environment may not.
        String env = Components.lambdaFunction(tf, "api")
                .block()
                .path("environment")
                .path(0)
                .path("variables")
                .asText("");
        Matcher m = LOCAL_REF.matcher(env);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, plan.isEvaluableLocal(m.group(1)) ? "$0" : "{}");
        }
        m.appendTail(sb);
        plan.output("env", sb.toString());

        return plan.planCases(BASE, CASES, only, this::checkPlan);
    }

    /** A case that planned: every route, the authorizer, the function URL and PUNCTUAL_AUTH_* as the mode says. */
    private void checkPlan(Case c, String where, OfflinePlan.Result r, List<String> drift) {
        Map<String, JsonNode> routes = new TreeMap<>(tf.resources("aws_apigatewayv2_route"));
        routes.remove(DASHBOARD);
        routes.keySet().forEach(name -> {
            expect(
                    drift,
                    where + ": route " + name + " authorization_type",
                    c.routes(),
                    text(r.outputs().get("route:" + name)));
            JsonNode id = r.outputs().get("authorizer_id:" + name);
            if (id == null) {
                drift.add(where + ": route " + name + " authorizer_id cannot be evaluated from variables");
            } else if (c.authorizer() != !id.isNull()) {
                drift.add(where + ": route " + name + (c.authorizer() ? " has no authorizer" : " has an authorizer"));
            } else if (c.authorizer()) {
                String authorizer = id.asText().substring("authorizer:".length());
                expect(
                        drift,
                        where + ": count of aws_apigatewayv2_authorizer." + authorizer,
                        "1",
                        text(r.outputs().get("authorizer_count:" + authorizer)));
            }
        });
        if (c.functionUrl() != null) {
            tf.resources("aws_lambda_function_url")
                    .keySet()
                    .forEach(name -> expect(
                            drift,
                            where + ": aws_lambda_function_url." + name + " authorization_type",
                            c.functionUrl(),
                            text(r.outputs().get("url:" + name))));
        }
        Map<String, String> auth = new TreeMap<>();
        JsonNode env = r.outputs().get("env");
        if (env == null) {
            drift.add(where + ": the api Lambda's environment cannot be evaluated from variables");
        } else {
            env.fields().forEachRemaining(e -> {
                if (e.getKey().startsWith("PUNCTUAL_AUTH_")) {
                    auth.put(e.getKey(), e.getValue().asText());
                }
            });
            expect(drift, where + ": the api Lambda's PUNCTUAL_AUTH_*", new TreeMap<>(c.environment()), auth);
        }
    }

    /**
     * An authorization_type is a literal other than NONE, or {@code local.<map>[var.auth]} whose map names every
     * mode, gives the authenticated modes what {@code expected} says, and gives "none" NONE only behind the
     * acknowledgement.
     */
    private List<String> authorization(String where, JsonNode node, Map<String, String> expected) {
        List<String> drift = new ArrayList<>();
        String text = node.isMissingNode() || node.isNull() ? null : node.asText();
        if (text == null) {
            return List.of(where + ": no authorization_type (NONE by default: anyone can call it)");
        }
        if (!text.contains("${")) {
            if (text.equals("NONE")) {
                drift.add(where + ": authorization_type is NONE in every mode: anyone can call it");
            } else if (!expected.containsValue(text)) {
                drift.add(where + ": authorization_type " + text + " is none of " + new TreeSet<>(expected.values()));
            }
            return drift;
        }
        Matcher m = BY_MODE.matcher(text);
        if (!m.matches()) {
            return List.of(where + ": authorization_type must be a literal " + new TreeSet<>(expected.values())
                    + " or local.<map>[var.auth], not " + text);
        }
        JsonNode map = tf.local(m.group(1)).orElse(null);
        if (map == null || !map.isObject()) {
            return List.of(where + ": local." + m.group(1) + " is not a map of the modes");
        }
        Set<String> keys = new TreeSet<>();
        map.fieldNames().forEachRemaining(keys::add);
        expect(drift, where + ": modes of local." + m.group(1), new TreeSet<>(MODES), keys);
        expected.forEach((mode, type) -> expect(
                drift,
                where + ": local." + m.group(1) + "." + mode,
                type,
                map.path(mode).asText(null)));
        String none = map.path("none").asText("");
        if (none.contains("NONE") && !none.contains(ACK)) {
            drift.add(where + ": local." + m.group(1) + ".none is NONE without " + ACK);
        }
        return drift;
    }

    /** A route that may be JWT names a JWT authorizer of jwt_issuer for jwt_audience, reading the bearer token. */
    private List<String> authorizer(String where, String authorizerId) {
        Matcher m = AUTHORIZER_REF.matcher(authorizerId);
        if (!m.find()) {
            return List.of(where + ": may be JWT but has no authorizer_id of an aws_apigatewayv2_authorizer");
        }
        JsonNode a = tf.resource("aws_apigatewayv2_authorizer", m.group(1)).orElse(null);
        if (a == null) {
            return List.of(where + ": no aws_apigatewayv2_authorizer." + m.group(1));
        }
        List<String> drift = new ArrayList<>();
        String name = "aws_apigatewayv2_authorizer." + m.group(1);
        expect(
                drift,
                name + " authorizer_type",
                "JWT",
                a.path("authorizer_type").asText(null));
        JsonNode jwt = a.path("jwt_configuration").path(0);
        expect(drift, name + " issuer", "${var.jwt_issuer}", jwt.path("issuer").asText(null));
        expect(
                drift,
                name + " audience",
                "${var.jwt_audience}",
                jwt.path("audience").asText(null));
        if (!a.path("identity_sources").toString().contains("$request.header.Authorization")) {
            drift.add(name + " does not read the Authorization header");
        }
        return drift;
    }

    /** Whether an authorization_type (a literal or a map by mode) is, in some mode, this type. */
    private boolean mayBe(JsonNode authorizationType, String type) {
        String text = authorizationType.asText("");
        Matcher m = BY_MODE.matcher(text);
        if (m.matches()) {
            JsonNode map = tf.local(m.group(1)).orElse(null);
            if (map != null) {
                for (JsonNode v : map) {
                    if (v.asText("").contains(type)) {
                        return true;
                    }
                }
            }
            return false;
        }
        return text.contains(type);
    }

    /** The expressions PUNCTUAL_AUTH_MODE is set to in a block, following locals. */
    private List<String> authModes(JsonNode block) {
        List<String> out = new ArrayList<>();
        tf.walk(
                block,
                (key, value) -> {
                    if (!key.equals("PUNCTUAL_AUTH_MODE")) {
                        return true;
                    }
                    String v = value.asText("");
                    out.add(v.startsWith("${") && v.endsWith("}") ? v.substring(2, v.length() - 1) : '"' + v + '"');
                    return false;
                },
                expression -> {
                    Matcher mode = MODE_IN_EXPR.matcher(expression);
                    while (mode.find()) {
                        out.add(mode.group(1).trim());
                    }
                });
        return out;
    }

    private static String text(JsonNode value) {
        return value == null || value.isNull() || value.isMissingNode() ? null : value.asText();
    }

    private static void expect(List<String> drift, String what, Object expected, Object actual) {
        if (!java.util.Objects.equals(expected, actual)) {
            drift.add(what + ": expected " + expected + ", terraform says " + actual);
        }
    }
}
