package dev.tally.examples.spring;

import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.filter.TallyAdminServlet;
import dev.tally.filter.TallyFilter;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * An MCP server in a Spring Boot application, behind Tally: the MCP Java SDK's servlet transport on
 * {@code /mcp}, and {@link TallyFilter} in front of it, registered with a {@link
 * FilterRegistrationBean}. A retried {@code create_ticket} is answered from Tally's record instead
 * of creating a second ticket. {@link TallyAdminServlet} on {@value #ADMIN}{@code /*} gives the
 * operator the write switch and the console (pending confirmations, unknown outcomes).
 */
@SpringBootApplication
public class TicketsApplication {
  /** The MCP endpoint. */
  public static final String ENDPOINT = "/mcp";

  /** Where the admin servlet (write switch, console, executions) is mapped. */
  public static final String ADMIN = "/tally";

  public static void main(String[] args) {
    SpringApplication.run(TicketsApplication.class, args);
  }

  /** The side effect this example protects. */
  @Bean
  Tickets tickets() {
    return new Tickets();
  }

  @Bean
  HttpServletStreamableServerTransportProvider mcpTransport() {
    return HttpServletStreamableServerTransportProvider.builder().mcpEndpoint(ENDPOINT).build();
  }

  @Bean(destroyMethod = "close")
  McpSyncServer mcpServer(HttpServletStreamableServerTransportProvider transport, Tickets tickets) {
    String schema =
        "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"}},"
            + "\"required\":[\"title\"]}";
    McpSchema.Tool create =
        McpSchema.Tool.builder("create_ticket", McpJsonDefaults.getMapper(), schema)
            .description("Creates a ticket (a side effect: never twice for one request).")
            .build();
    McpSchema.Tool count =
        McpSchema.Tool.builder(
                "count_tickets", McpJsonDefaults.getMapper(), "{\"type\":\"object\"}")
            .description("Counts the tickets created so far (read-only: always listed).")
            .annotations(new McpSchema.ToolAnnotations("count", true, false, true, false, null))
            .build();
    return McpServer.sync(transport)
        .serverInfo("tickets", "1.0")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(
            McpServerFeatures.SyncToolSpecification.builder()
                .tool(create)
                .callHandler(
                    (exchange, request) ->
                        McpSchema.CallToolResult.builder()
                            .addTextContent(
                                "created "
                                    + tickets.create(
                                        String.valueOf(request.arguments().get("title"))))
                            .build())
                .build(),
            McpServerFeatures.SyncToolSpecification.builder()
                .tool(count)
                .callHandler(
                    (exchange, request) ->
                        McpSchema.CallToolResult.builder()
                            .addTextContent(tickets.created() + " tickets")
                            .build())
                .build())
        .build();
  }

  /** The SDK's servlet on the MCP endpoint; it answers asynchronously. */
  @Bean
  ServletRegistrationBean<HttpServletStreamableServerTransportProvider> mcpServlet(
      HttpServletStreamableServerTransportProvider transport) {
    ServletRegistrationBean<HttpServletStreamableServerTransportProvider> r =
        new ServletRegistrationBean<>(transport, ENDPOINT);
    r.setAsyncSupported(true);
    r.setLoadOnStartup(1);
    return r;
  }

  /**
   * Tally in front of the endpoint. Its configuration is the shared Tally file ({@code
   * tally.config-file}, e.g. {@code --tally.config-file=/etc/tally/tally.yaml}; config/README.md)
   * with the {@code TALLY_*} environment applied; without a file, the defaults on the memory store.
   */
  @Bean(destroyMethod = "")
  TallyFilter tally(@Value("${tally.config-file:}") String configFile) {
    ConfigOverrides env = ConfigOverrides.ofEnv(System.getenv());
    TallyConfig config =
        configFile.isBlank()
            ? TallyConfig.parse("store: memory\n", "defaults", env)
            : TallyConfig.load(Path.of(configFile), env);
    return TallyFilter.builder().config(config).build();
  }

  /** The filter on the MCP endpoint (the container initializes and destroys it). */
  @Bean
  FilterRegistrationBean<TallyFilter> tallyFilter(TallyFilter tally) {
    FilterRegistrationBean<TallyFilter> r = new FilterRegistrationBean<>(tally);
    r.addUrlPatterns(ENDPOINT);
    r.setAsyncSupported(true); // the SDK's servlet starts async processing
    r.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
    r.setName("tally");
    return r;
  }

  /**
   * The admin servlet over the same filter, at {@value #ADMIN}{@code /*}: the write switch ({@code
   * /v1/writes}), a person's pending calls ({@code /v1/actions}), the operator's executions ({@code
   * /v1/executions}) and the console ({@code /console}). The operator's admin token is read from
   * {@code tally.admin-token-file}, else {@code TALLY_ADMIN_TOKEN}; without one the operator's
   * endpoints answer 403 and only people's own confirmations work.
   */
  @Bean
  ServletRegistrationBean<TallyAdminServlet> tallyAdmin(
      TallyFilter tally, @Value("${tally.admin-token-file:}") String tokenFile) {
    String token;
    try {
      token =
          tokenFile.isBlank()
              ? System.getenv("TALLY_ADMIN_TOKEN")
              : Files.readString(Path.of(tokenFile)).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("tally.admin-token-file: cannot be read", e);
    }
    ServletRegistrationBean<TallyAdminServlet> r =
        new ServletRegistrationBean<>(
            new TallyAdminServlet(tally, token == null || token.isBlank() ? null : token),
            ADMIN + "/*");
    r.setName("tally-admin");
    return r;
  }
}
