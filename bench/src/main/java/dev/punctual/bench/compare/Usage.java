package dev.punctual.bench.compare;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Totals a system counted of its own requests: calls by {@code service:operation}, and capacity units by
 * {@code wcu|rcu:<table>[:<index>]}. Only differences between two snapshots mean anything.
 */
public record Usage(Map<String, Double> counters) {
    public Usage {
        counters = Map.copyOf(counters);
    }

    public Usage minus(Usage before) {
        Map<String, Double> out = new TreeMap<>(counters);
        before.counters.forEach((k, v) -> out.merge(k, -v, Double::sum));
        return new Usage(out);
    }

    public Usage plus(Usage other) {
        Map<String, Double> out = new TreeMap<>(counters);
        other.counters.forEach((k, v) -> out.merge(k, v, Double::sum));
        return new Usage(out);
    }

    /** The sum of every counter whose name starts with {@code prefix}. */
    public double sum(String prefix) {
        return sum(name -> name.startsWith(prefix));
    }

    /** The sum of every counter whose name passes {@code test}. */
    public double sum(Predicate<String> test) {
        return counters.entrySet().stream()
                .filter(e -> test.test(e.getKey()))
                .mapToDouble(Map.Entry::getValue)
                .sum();
    }
}
