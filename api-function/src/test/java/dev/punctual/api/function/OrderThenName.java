package dev.punctual.api.function;

import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.Order;

/**
 * Test classes by {@link Order} (those without one in the middle), then by name: the order Quarkus's orderer keeps
 * within a group of tests sharing an application (its {@code secondary-orderer}, set in the pom), so that
 * {@link ConformanceCoverageLambdaTest} runs last while the others keep the order by name they have always had.
 */
public final class OrderThenName implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors()
                .sort(Comparator.comparingInt((ClassDescriptor d) ->
                                d.findAnnotation(Order.class).map(Order::value).orElse(Order.DEFAULT))
                        .thenComparing(d -> d.getTestClass().getName()));
    }
}
